/**
 * `rta upstream list`'s work: discovers every upstream in config now (as a
 * server would when it starts, and keeping what it found for a person's
 * later grants), then lists one row per tool, and one for an upstream that
 * offers none, with the reason.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { upstreamEntryProblems } from "../core/config.ts";
import { dirs } from "../core/dirs.ts";
import { Exit } from "../core/errors.ts";
import type { LoadedUpstream } from "../upstreams/load.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm } from "./io.ts";
import { printListing, readerLeft } from "./listing.ts";

type Row = { upstream: LoadedUpstream; tool?: LoadedUpstream["tools"][number] };

/** Lists the upstreams; exits 1 when one is unavailable or left out; refuses nothing else. */
export async function list(cli: Cli, opts: { json?: boolean }): Promise<number> {
  const { io } = cli;
  await cli.loadUpstreams(true);
  const upstreams = cli.upstreams();
  const failed = upstreams.some((u) => u.state === "failed");
  try {
    if (outputForm(io, opts.json) === "json") {
      io.out(jsonText(io, { upstreams: upstreams.map(asJson), total: upstreams.length }));
    } else {
      const rows: Row[] = upstreams.flatMap((u): Row[] => {
        // a selected resource, template or prompt is a row as a tool is: what it is offered as, or why not
        const selected = (u.selected ?? []).map((x) => ({
          tool: x.key,
          ...(x.exposed !== undefined && x.withheld === undefined ? { name: x.exposed, safety: "read" } : {}),
          ...(x.leftOut !== undefined ? { leftOut: x.leftOut } : {}),
          ...(x.withheld !== undefined ? { withheld: x.withheld } : {}),
        }));
        const all = [...u.tools, ...selected];
        return all.length === 0 ? [{ upstream: u }] : all.map((tool) => ({ upstream: u, tool }));
      });
      printListing<Row>(cli, opts.json, {
        key: "upstreams",
        items: rows,
        columns: [
          { name: "upstream", cell: (r) => r.upstream.name },
          { name: "state", cell: (r) => r.upstream.state },
          { name: "tool", cell: (r) => r.tool?.tool ?? null },
          { name: "capability", cell: (r) => r.tool?.name ?? null },
          { name: "safety", cell: (r) => r.tool?.safety ?? null },
          {
            name: "note",
            cell: (r) => r.upstream.reason ?? r.tool?.withheld ?? r.tool?.leftOut ?? r.tool?.note ?? null,
          },
        ],
        json: () => ({}),
        empty: "no upstreams: add one as [upstreams.NAME] in config.toml (docs/upstreams.md)",
      });
    }
  } catch (err) {
    if (!readerLeft(err)) throw err;
  }
  // an entry config.toml holds but that does not read is in no row: said here, or a person sees nothing of it
  const unread = entryProblems(cli);
  for (const p of unread) io.err(`rta: ${p.message}\n`);
  if (unread.length > 0)
    io.err("rta: hint: mend those entries in config.toml (`rta config path`); `rta config check` says the same\n");
  if (!failed) return unread.length > 0 ? Exit.failure : Exit.ok;
  // the exit status alone would leave a person reading a long list for why: say which, on stderr, as find does
  const names = upstreams.filter((u) => u.state === "failed").map((u) => u.name);
  io.err(
    `rta: ${names.length === 1 ? "1 upstream is" : `${names.length} upstreams are`} left out: ${names.join(", ")}\n`,
  );
  io.err(
    "rta: hint: the note beside each says why; mend its entry in config.toml (`rta config path`) and run `rta upstream list` again\n",
  );
  return Exit.failure;
}

function asJson(u: LoadedUpstream): Record<string, unknown> {
  return {
    name: u.name,
    transport: u.transport,
    state: u.state,
    ...(u.reason !== undefined ? { reason: u.reason } : {}),
    tools: u.tools.map((t) => ({
      tool: t.tool,
      capability: t.name ?? null,
      safety: t.safety ?? null,
      ...(t.leftOut !== undefined ? { left_out: t.leftOut } : {}),
      ...(t.note !== undefined ? { note: t.note } : {}),
      ...(t.withheld !== undefined ? { withheld: t.withheld } : {}),
    })),
    ...(u.selected !== undefined && u.selected.length > 0
      ? {
          selected: u.selected.map((x) => ({
            select: x.key,
            offered_as: x.withheld === undefined ? (x.exposed ?? null) : null,
            ...(x.withheld !== undefined && x.exposed !== undefined ? { held_as: x.exposed } : {}),
            ...(x.leftOut !== undefined ? { left_out: x.leftOut } : {}),
            ...(x.withheld !== undefined ? { withheld: x.withheld } : {}),
          })),
        }
      : {}),
  };
}

/** The problems of the upstream entries in config.toml; none when it cannot be read (the listing said so already). */
function entryProblems(cli: Cli): ReturnType<typeof upstreamEntryProblems> {
  let text: string;
  try {
    text = readFileSync(join(dirs(cli.io.env).config, "config.toml"), "utf8");
  } catch {
    return [];
  }
  return upstreamEntryProblems(text);
}
