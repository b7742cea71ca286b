/**
 * `rta upstream approve NAME` and `rta upstream refresh [NAME]`: a person's
 * look at what an upstream offers now against what was approved. approve
 * discovers the upstream, shows each tool (name, safety class, digest, its
 * description's first line) or the diff against the approval, asks on a
 * terminal (piped, it needs --yes) and keeps the approval. refresh discovers
 * again and says what changed, approving nothing.
 */
import { canonical } from "../core/canonical.ts";
import { ConfigSource, usable } from "../core/config.ts";
import type { UpstreamConfig } from "../core/configUpstreams.ts";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { approvalOf, type Reach, reachMoved, reachOf, readApprovals, updateApprovals } from "../upstreams/approval.ts";
import { type Diff, diffOf, envNamesMoved, unchanged } from "../upstreams/approvalDiff.ts";
import type { SelectedDefinition } from "../upstreams/catalog.ts";
import type { UpstreamTool } from "../upstreams/discover.ts";
import type { Found } from "../upstreams/load.ts";
import { safetyOf } from "../upstreams/tools.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm } from "./io.ts";
import { shown } from "./render.ts";

/** The upstreams config names now; refuses nothing (a config that does not read names none). */
export function configuredUpstreams(cli: Cli): Record<string, UpstreamConfig> {
  return usable(ConfigSource.inConfigDir(dirs(cli.io.env).config).current())?.upstreams ?? {};
}

/** Refuses a name config does not give (upstream.notfound). */
export function namedUpstream(cli: Cli, name: string): UpstreamConfig {
  const config = configuredUpstreams(cli)[name];
  if (config === undefined)
    throw new RtaError(
      "upstream.notfound",
      `config.toml names no upstream ${JSON.stringify(name)}`,
      "`rta upstream list` names each; `rta upstream add` adds one",
    );
  return config;
}

/** Discovers `only` (or every upstream) now, keeping what was found; stops what it started. Refuses nothing. */
async function discovered(cli: Cli, only?: string): Promise<Map<string, Found>> {
  const configs = configuredUpstreams(cli);
  const { Upstreams, MAX_MESSAGE } = await import("../upstreams/load.ts");
  await (await import("../core/pattern.ts")).loadPatterns();
  const ups = new Upstreams(configs, {
    dataDir: dirs(cli.io.env).data,
    home: cli.io.env.HOME ?? "/",
    maxMessage: MAX_MESSAGE,
  });
  try {
    await ups.discoverAll(only);
  } finally {
    await ups.close();
  }
  const out = new Map<string, Found>();
  for (const name of Object.keys(configs)) {
    const f = ups.foundOf(name);
    if (f !== undefined && (only === undefined || name === only)) out.set(name, f);
  }
  return out;
}

function firstLine(text: string | undefined): string {
  const lines = (text ?? "").split(/\r?\n/);
  const more =
    lines.length > 1 ? ` (+${lines.length - 1} more line${lines.length === 2 ? "" : "s"}: --json shows all)` : "";
  return shown(lines[0]?.slice(0, 120) ?? "") + more;
}

/** A title as a person reads it in a diff: escaped, or said to be none. */
function titled(title: string | undefined): string {
  return title === undefined ? "(none)" : shown(title);
}

/** A text as a person reads it in a diff: every line of it, each control escaped, continued under the first. */
function everyLine(text: string | undefined): string {
  return (text ?? "")
    .split(/\r?\n/)
    .map((line) => shown(line))
    .join("\n         ");
}

function toolLines(tools: readonly UpstreamTool[], config: UpstreamConfig): string {
  const width = Math.max(0, ...tools.map((t) => shown(t.name).length));
  return tools
    .map((t) => {
      const safety = safetyOf(t, config).safety.padEnd(11);
      // its title is what an agent reads as its summary: shown as it is, under the line
      const title = t.title !== undefined ? `    title: ${shown(t.title)}\n` : "";
      return `  ${shown(t.name).padEnd(width)}  ${safety}  ${t.digest.slice(0, 12)}  ${firstLine(t.description)}\n${title}`;
    })
    .join("");
}

/** Selected resources, templates and prompts, a line each: its selection, digest and description's first line; its title under it. */
function selectedLines(selected: readonly SelectedDefinition[]): string {
  const width = Math.max(0, ...selected.map((s) => shown(s.key).length));
  const said = (s: SelectedDefinition) =>
    firstLine(typeof s.definition.description === "string" ? s.definition.description : "");
  // its title is words an agent reads, as a tool's is: shown as it is, under the line
  const title = (s: SelectedDefinition) =>
    typeof s.definition.title === "string" ? `    title: ${shown(s.definition.title)}\n` : "";
  return selected
    .map((s) => `  ${shown(s.key).padEnd(width)}  ${s.digest.slice(0, 12)}  ${said(s)}\n${title(s)}`)
    .join("");
}

/** What changed of the selected resources, templates and prompts, each changed definition then and now, whole. */
function selectedText(diff: Diff): string {
  const sel = diff.selected;
  if (sel === undefined) return "";
  let out = sel.added.length > 0 ? `selected, added:\n${selectedLines(sel.added)}` : "";
  if (sel.removed.length > 0) out += `selected, removed:\n${sel.removed.map((k) => `  ${shown(k)}\n`).join("")}`;
  for (const c of sel.changed)
    out += `selected, changed: ${shown(c.now.key)}\n    was: ${shown(canonical(c.old.definition))}\n    now: ${shown(canonical(c.now.definition))}\n`;
  return out;
}

/** ` and 3 selected resources, templates or prompts`, or nothing when config selects none that was found. */
function selectedCount(found: Found): string {
  const n = found.catalog?.selected.length ?? 0;
  return n === 0 ? "" : ` and ${n} selected resource${n === 1 ? ", template or prompt" : "s, templates or prompts"}`;
}

/** The diff as a person reads it: added, removed, changed (which fields, the description then and now). */
function diffText(name: string, diff: Diff, config: UpstreamConfig, first: boolean): string {
  let out = first ? `upstream ${name} offers ${diff.added.length} tool${diff.added.length === 1 ? "" : "s"}:\n` : "";
  if (first)
    return (
      out +
      toolLines(diff.added, config) +
      (diff.selected?.added.length ? `and selects:\n${selectedLines(diff.selected.added)}` : "")
    );
  if (diff.reach) out += reachText(diff.reach);
  if (diff.exe)
    out += `its executable changed: sha256 ${diff.exe.old?.slice(0, 12)} is now ${diff.exe.now?.slice(0, 12) ?? "not found"}\n`;
  if (diff.added.length > 0) out += `added:\n${toolLines(diff.added, config)}`;
  if (diff.removed.length > 0) out += `removed:\n${diff.removed.map((t) => `  ${shown(t.name)}\n`).join("")}`;
  if (diff.changed.length > 0) {
    out += "changed:\n";
    for (const c of diff.changed) {
      out += `  ${shown(c.tool)}: ${c.fields.join(", ")}\n`;
      // all of it: a change past the first line is what an agent reads, and what the person approves
      if (c.fields.includes("title"))
        out += `    title was: ${titled(c.old.title)}\n    title now: ${titled(c.now.title)}\n`;
      if (c.fields.includes("description"))
        out += `    was: ${everyLine(c.old.description)}\n    now: ${everyLine(c.now.description)}\n`;
      // a schema's or the annotations' change is shown whole too: an agent reads each property's description
      for (const field of ["inputSchema", "annotations"] as const)
        if (c.fields.includes(field))
          out += `    ${field} was: ${shown(canonical(c.old[field] ?? null))}\n    ${field} now: ${shown(canonical(c.now[field] ?? null))}\n`;
    }
  }
  return out + selectedText(diff);
}

function diffJson(diff: Diff): Record<string, unknown> {
  return {
    added: diff.added.map((t) => ({ tool: t.name, digest: t.digest, description: t.description ?? null })),
    removed: diff.removed.map((t) => ({ tool: t.name, digest: t.digest })),
    changed: diff.changed.map((c) => ({
      tool: c.tool,
      fields: c.fields,
      old: { digest: c.old.digest, description: c.old.description ?? null },
      new: { digest: c.now.digest, description: c.now.description ?? null },
    })),
    ...(diff.exe ? { executable: diff.exe } : {}),
    ...(diff.selected
      ? {
          selected: {
            added: diff.selected.added.map((s) => ({ key: s.key, digest: s.digest, definition: s.definition })),
            removed: diff.selected.removed,
            changed: diff.selected.changed.map((c) => ({
              key: c.now.key,
              old: c.old.definition,
              new: c.now.definition,
            })),
          },
        }
      : {}),
    ...(diff.reach ? { reached: diff.reach } : {}),
  };
}

/** Where the upstream moved, as a person reads it: the command or URL then and now, each control escaped. */
function reachText(moved: NonNullable<Diff["reach"]>): string {
  const what = reachMoved(moved.old, moved.now);
  const said = (r: Reach | null) =>
    r === null
      ? "(not bound: approved before rta bound it)"
      : shown("url" in r ? r.url : `${JSON.stringify(r.command)} env: ${(r.env ?? []).join(" ") || "(none)"}`);
  const env = envNamesMoved(moved.old, moved.now);
  const names = (how: string, n: string[]) => (n.length > 0 ? `  env ${how}: ${n.join(" ")}\n` : "");
  return `${what} changed:\n  was: ${said(moved.old)}\n  now: ${said(moved.now)}\n${names("added", env.added)}${names("removed", env.removed)}`;
}

function failedDiscovery(name: string, found: Found | undefined): RtaError {
  const reason = found !== undefined && !found.ok ? found.reason : "it was not discovered";
  return new RtaError(
    "upstream.unavailable",
    `upstream ${name} is unavailable: ${reason}`,
    "mend its entry in config.toml (`rta config path`), then approve it again",
  );
}

/**
 * Shows what approving `name` would approve, asks on a terminal unless --yes,
 * and keeps the approval. Refuses upstream.notfound, upstream.unavailable (its
 * discovery failed), and upstream.declined (piped without --yes, or no answer).
 */
export async function approve(cli: Cli, name: string, opts: { yes?: boolean; json?: boolean }): Promise<number> {
  const { io } = cli;
  const config = namedUpstream(cli, name);
  const found = (await discovered(cli, name)).get(name);
  if (found === undefined || !found.ok) throw failedDiscovery(name, found);
  // what is approved is pinned: a program rta cannot read to hash would run unpinned
  if (config.transport.kind === "stdio" && found.exe === undefined)
    throw new RtaError(
      "upstream.unavailable",
      `upstream ${name}'s program cannot be read, so rta cannot pin what it runs`,
      "make the program readable by the user rta runs as, then approve it again",
    );
  const dataDir = dirs(io.env).data;
  const approval = readApprovals(dataDir)[name];
  const diff = diffOf(found.tools, found.exe, approval, reachOf(config), found.catalog?.selected);
  const form = outputForm(io, opts.json);
  if (approval !== undefined && unchanged(diff)) {
    if (form === "json") io.out(jsonText(io, { upstream: name, approved: false, unchanged: true, ...diffJson(diff) }));
    else io.out(`upstream ${name} is approved as it is: nothing changed since\n`);
    return Exit.ok;
  }
  const say = form === "terminal" ? io.out : io.err;
  say(diffText(name, diff, config, approval === undefined));
  const asked = io.stdinIsTTY && io.stdoutIsTTY;
  if (opts.yes !== true && !asked)
    throw new RtaError(
      "upstream.declined",
      `upstream ${name} was not approved: nobody was asked`,
      "run it on a terminal to be asked, or give --yes to approve it as shown",
    );
  if (opts.yes !== true) {
    say(`approve ${approval === undefined ? "it" : "the change"}? [y/N] `);
    if (!/^(y|yes)$/i.test(io.readLine().trim()))
      throw new RtaError(
        "upstream.declined",
        `upstream ${name} was not approved`,
        "answer y to approve it, or give --yes",
      );
  }
  updateApprovals(dataDir, (all) => {
    all[name] = approvalOf(found.tools, found.exe, new Date(cli.clock.now()), reachOf(config), found.catalog?.selected);
  });
  if (form === "json") io.out(jsonText(io, { upstream: name, approved: true, ...diffJson(diff) }));
  else if (form === "plain") io.out(`${name}\tapproved\t${found.tools.length}\n`);
  else
    io.out(
      `approved upstream ${name}: ${found.tools.length} tool${found.tools.length === 1 ? "" : "s"}${selectedCount(found)}${approval === undefined ? "" : "; a grant on it issued before covers none of them now"}; a server started now offers them\n`,
    );
  return Exit.ok;
}

/** Discovers `name` (or every upstream) again and says what changed against each approval; exits 1 when one failed. */
export async function refresh(cli: Cli, name: string | undefined, opts: { json?: boolean }): Promise<number> {
  const { io } = cli;
  if (name !== undefined) namedUpstream(cli, name);
  const found = await discovered(cli, name);
  const approvals = readApprovals(dirs(io.env).data);
  const configs = configuredUpstreams(cli);
  const form = outputForm(io, opts.json);
  const rows: Record<string, unknown>[] = [];
  let text = "";
  let failed = false;
  for (const [upstream, f] of found) {
    if (!f.ok) {
      failed = true;
      rows.push({ upstream, state: "failed", reason: f.reason });
      text += `${upstream}: left out: ${shown(f.reason)}\n`;
      continue;
    }
    const approval = approvals[upstream];
    const config = configs[upstream] as UpstreamConfig;
    const diff = diffOf(f.tools, f.exe, approval, reachOf(config), f.catalog?.selected);
    const state = approval === undefined ? "quarantined" : unchanged(diff) ? "approved" : "changed";
    rows.push({ upstream, state, tools: f.tools.length, ...(state === "changed" ? diffJson(diff) : {}) });
    if (state === "quarantined")
      text += `${upstream}: not approved yet (${f.tools.length} tools): \`rta upstream approve ${upstream}\`\n`;
    else if (state === "approved") text += `${upstream}: as approved (${f.tools.length} tools)\n`;
    else
      text += `${upstream}: changed since its approval, withheld until \`rta upstream approve ${upstream}\`\n${diffText(upstream, diff, config, false).replace(/^/gm, "  ")}`;
  }
  if (form === "json") io.out(jsonText(io, { upstreams: rows, total: rows.length }));
  else if (form === "plain") io.out(rows.map((r) => `${r.upstream}\t${r.state}\t${r.tools ?? ""}\n`).join(""));
  else io.out(text || "no upstreams: add one with `rta upstream add`\n");
  return failed ? Exit.failure : Exit.ok;
}
