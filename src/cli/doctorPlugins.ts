/** What `rta doctor` says of the installed plugins: each one offered, changed since it was installed, or left out and why. */
import type { Cli } from "./factory.ts";

type Add = (check: string, status: "ok" | "note" | "fail", detail: string, fix?: string) => void;

/** Adds a finding per installed plugin (none when none is installed); refuses nothing. */
export function pluginFindings(cli: Cli, add: Add): void {
  // the catalogue is made first: a plugin whose capabilities do not load is left out there, with the reason
  void cli.catalogue;
  for (const p of cli.plugins()) {
    if (!p.offered) {
      const fix = p.fix ?? `install it again with \`rta pkg install PATH\`, or \`rta pkg remove ${p.name}\``;
      add(`plugin ${p.name}`, "fail", `left out: ${p.reason}`, fix);
    } else if (p.changed)
      add(
        `plugin ${p.name}`,
        "fail",
        `its binary changed since it was installed (it hashes to ${(p.changedTo ?? p.sha256).slice(0, 12)} now): no grant issued before covers it`,
        "run `rta pkg verify`; if you trust the new binary, `rta pkg install` it, then grant again",
      );
    else {
      const n = p.described.capabilities.length;
      add(`plugin ${p.name}`, "ok", `${p.described.version}, ${n} capabilit${n === 1 ? "y" : "ies"}`);
    }
  }
}
