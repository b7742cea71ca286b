/**
 * A stand-in for a service a free read asks (endoflife.date, osv.dev), on 127.0.0.1 and a free port: it answers
 * each route with recorded bytes, and counts and keeps what it was asked, so a test sees what left the machine.
 */
import type { Server } from "bun";

export interface Asked {
  method: string;
  path: string;
  body: string;
}

export type Route = (req: Request, body: string) => Response | Promise<Response>;

export interface StandIn {
  /** the base URL to set as the operator's, with no trailing slash */
  url: string;
  asked: Asked[];
  stop: () => Promise<void>;
}

/** Serves `routes` (by "METHOD /path", or "/path" for any method); anything else is a 404 with a JSON body. */
export function startStandIn(routes: Record<string, Route | string | object>): StandIn {
  const asked: Asked[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      asked.push({ method: req.method, path: url.pathname + url.search, body });
      const route = routes[`${req.method} ${url.pathname}`] ?? routes[url.pathname];
      if (route === undefined) return Response.json({ message: "not found" }, { status: 404 });
      if (typeof route === "function") return route(req, body);
      if (typeof route === "string") return new Response(route, { headers: { "content-type": "application/json" } });
      return Response.json(route);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    asked,
    stop: async () => {
      await server.stop(true);
    },
  };
}
