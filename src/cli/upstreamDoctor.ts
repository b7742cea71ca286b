/** What `rta doctor` says of the upstreams in config: each as its last discovery found it (`rta upstream list` discovers now). */
import type { LoadedUpstream } from "../upstreams/load.ts";
import type { Cli } from "./factory.ts";

type Add = (check: string, status: "ok" | "note" | "fail", detail: string, fix?: string) => void;

/** Adds a finding per configured upstream (none when config names none); refuses nothing. */
export function upstreamFindings(cli: Cli, add: Add): void {
  for (const u of cli.upstreams()) {
    const check = `upstream ${u.name}`;
    if (u.state === "failed")
      add(check, "fail", `its tools are not offered: ${u.reason}`, "run `rta upstream list` to try it again now");
    else if (u.state === "unknown")
      add(check, "note", "not discovered yet", "nothing to do: `rta mcp serve` discovers it, or `rta upstream list`");
    else if (u.state === "quarantined")
      add(
        check,
        "note",
        `in quarantine: its ${u.tools.length} tools are withheld from agents until a person approves them`,
        `run \`rta upstream approve ${u.name}\``,
      );
    else if (u.tools.some((t) => t.withheld !== undefined)) {
      const held = u.tools.filter((t) => t.withheld !== undefined).map((t) => t.tool);
      add(
        check,
        "note",
        `withheld, changed or new since its approval: ${held.join(", ")}`,
        `run \`rta upstream approve ${u.name}\` to see the change and approve it`,
      );
    } else {
      const offered = u.tools.filter((t) => t.name !== undefined).length;
      const left = u.tools.filter((t) => t.leftOut !== undefined);
      const detail = `${offered} tool${offered === 1 ? "" : "s"} at its last discovery`;
      if (left.length === 0) add(check, "ok", detail);
      else
        add(
          check,
          "note",
          `${detail}; left out: ${left.map((t) => `${t.tool} (${t.leftOut})`).join(", ")}`,
          "the upstream's author can fix those tools; the rest are offered",
        );
    }
    selectionFindings(u, check, add);
  }
}

/** A finding for the selected resources, templates and prompts left out or withheld (config's `select`). */
function selectionFindings(u: LoadedUpstream, check: string, add: Add): void {
  if (u.state === "failed" || u.state === "unknown" || u.state === "quarantined") return;
  const left = (u.selected ?? []).filter((x) => x.leftOut !== undefined);
  const held = (u.selected ?? []).filter((x) => x.withheld !== undefined);
  if (left.length > 0)
    add(
      `${check} select`,
      "fail",
      `not offered: ${left.map((x) => `${x.key} (${x.leftOut})`).join(", ")}`,
      "mend select in config.toml (`rta upstream list` names what it found), or the upstream",
    );
  if (held.length > 0)
    add(
      `${check} select`,
      "note",
      `withheld, changed or new since its approval: ${held.map((x) => x.key).join(", ")}`,
      `run \`rta upstream approve ${u.name}\` to see the change and approve it`,
    );
}

/**
 * What a server says on stderr after its banner of its upstreams: each left
 * out with why, each in quarantine, and the tools withheld since an approval.
 */
export function serveNotes(upstreams: readonly LoadedUpstream[]): string[] {
  const notes: string[] = [];
  for (const u of upstreams) {
    if (u.state === "failed")
      notes.push(
        `rta: upstream ${u.name} is left out, its tools not offered: ${u.reason} (\`rta upstream list\` says more)`,
      );
    else if (u.state === "quarantined")
      notes.push(`rta: upstream ${u.name} is in quarantine, its tools not offered: \`rta upstream approve ${u.name}\``);
    else {
      const held = [...u.tools, ...(u.selected ?? []).map((x) => ({ ...x, tool: x.key }))]
        .filter((t) => t.withheld !== undefined)
        .map((t) => t.tool);
      if (held.length > 0)
        notes.push(
          `rta: upstream ${u.name} withholds ${held.join(", ")}, changed or new since its approval: \`rta upstream approve ${u.name}\``,
        );
    }
  }
  return notes;
}
