/** What `rta doctor` says of the upstreams in config: each as its last discovery found it (`rta upstream list` discovers now). */
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
    else {
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
  }
}
