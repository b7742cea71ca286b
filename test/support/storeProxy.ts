/** Loopback proxies in front of a test's PostgreSQL store, for the store to stop answering while a server runs. */
import { createServer, type Server, type Socket, connect as tcp } from "node:net";

/** A loopback proxy to `target` that, once frozen, takes connections and bytes and passes nothing on. */
export async function freezable(target: URL): Promise<{ port: number; freeze(): void; close(): void }> {
  let frozen = false;
  const open = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    open.add(inbound);
    inbound.on("close", () => open.delete(inbound));
    inbound.on("error", () => {});
    if (frozen) return;
    const out = tcp(Number(target.port), target.hostname);
    open.add(out);
    out.on("error", () => inbound.destroy());
    inbound.on("data", (d) => {
      if (!frozen) out.write(d);
    });
    out.on("data", (d) => {
      if (!frozen) inbound.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    freeze: () => {
      frozen = true;
    },
    close: () => {
      for (const s of open) s.destroy();
      server.close();
    },
  };
}

/** A loopback proxy to `target` that, once cut, closes every connection it holds and each new one at once. */
export async function cuttable(target: URL): Promise<{ port: number; cut(): void; close(): void }> {
  let cut = false;
  const open = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    inbound.on("error", () => {});
    if (cut) {
      inbound.destroy();
      return;
    }
    const out = tcp(Number(target.port), target.hostname);
    for (const s of [inbound, out]) {
      open.add(s);
      s.on("close", () => open.delete(s));
    }
    out.on("error", () => inbound.destroy());
    inbound.pipe(out);
    out.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    cut: () => {
      cut = true;
      for (const s of open) s.destroy();
    },
    close: () => {
      for (const s of open) s.destroy();
      server.close();
    },
  };
}
