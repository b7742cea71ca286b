/**
 * `rta config path | show | check`: the operator's config, for the person.
 * Never a tool.
 */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Catalogue } from "../core/catalogue.ts";
import { CONFIG_FILE, type Config, ConfigSource, readConfig } from "../core/config.ts";
import { dirs } from "../core/dirs.ts";
import { Exit, type RtaError } from "../core/errors.ts";
import { movedHint } from "../core/movedAreas.ts";
import type { Scalar } from "../core/result.ts";
import { maskSecrets } from "../core/secrets.ts";
import { checkedSetting } from "../gate/fill.ts";
import { baseUrlRefusal } from "../gate/net/offsite.ts";
import { POLICY_FILE } from "../gate/policy.ts";
import { safeUrl } from "../gate/store/pgSchema.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm } from "./io.ts";
import { printResult } from "./printResult.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";

/**
 * Prints where config.toml is (every dir with --json), and makes the config dir (0700) when it is missing, so the
 * first setting appended with `>> "$(rta config path)"` lands. It reads nothing, so it refuses nothing: a dir it
 * cannot make is the append's to say.
 */
export function configPath(cli: Cli, opts: { json?: boolean }): number {
  const d = dirs(cli.io.env);
  try {
    mkdirSync(d.config, { recursive: true, mode: 0o700 });
  } catch {}
  const out = {
    config: join(d.config, CONFIG_FILE),
    policy: join(d.config, POLICY_FILE),
    config_dir: d.config,
    data_dir: d.data,
  };
  cli.io.out(outputForm(cli.io, opts.json) === "json" ? jsonText(cli.io, out) : `${out.config}\n`);
  return Exit.ok;
}

/** Keys whose values are secrets: shown masked. A config's own names, so short ones (pwd, pass) are taken too. */
const SECRET_KEY = /token|pass|pwd|secret|key|credential|auth|bearer|cookie/i;

/** Prints the config as rta reads it, secrets masked; a config that does not read is its own refusal. */
export function configShow(cli: Cli, opts: { json?: boolean }): number {
  const source = ConfigSource.inConfigDir(dirs(cli.io.env).config);
  const state = source.current();
  if (state.kind !== "ok") return reportError(cli.io, state.error, opts.json === true);
  const masked = JSON.parse(
    // a secret under any name is masked by its shape too: a URL's password, a token in a query, a credential header;
    // the store's URL is said as every other message says it, which leaves out a password whatever it holds
    JSON.stringify(state.config, (k, v) =>
      typeof v !== "string" ? v : k === "store" ? safeUrl(v) : SECRET_KEY.test(k) ? "***" : maskSecrets(v),
    ),
  );
  // --json is the config itself; otherwise as any object result is printed: nested tables indented on a terminal,
  // dotted `key<TAB>value` lines piped, every string someone chose escaped
  if (opts.json === true) cli.io.out(jsonText(cli.io, masked));
  else printResult(cli.io, { type: "object", value: masked as Record<string, unknown> }, false);
  return Exit.ok;
}

/** Everything config.toml says that the catalogue would refuse, each with where it is. */
export function configProblems(config: Config, catalogue: Catalogue): string[] {
  const problems: string[] = [];
  const areas = new Set(catalogue.areas());
  const check = (capName: string, input: string, value: Scalar, where: string) => {
    const cap = catalogue.byName(capName);
    const spec = cap?.inputs[input];
    if (!cap || !spec) return problems.push(`${where}: ${capName} has no input ${input}`);
    try {
      checkedSetting(cap, input, spec, value, where);
    } catch (err) {
      return problems.push(`${where}: ${(err as RtaError).message}`);
    }
    // a base URL every call of the read would refuse is said here, not first by the call
    const refusal = spec.baseUrl && typeof value === "string" ? baseUrlRefusal(value, input) : undefined;
    if (refusal) problems.push(`${where}: ${refusal.message}`);
  };
  // an area built in before and a plugin now (note) is named with how to install it
  const moved = (name: string) => {
    const hint = movedHint(catalogue, name.split(".")[0] as string);
    return hint === undefined ? "" : ` (${hint})`;
  };
  for (const [target, inputs] of Object.entries(config.defaults)) {
    const caps = target.includes(".")
      ? [target]
      : catalogue
          .all()
          .filter((c) => c.area === target)
          .map((c) => c.name);
    if (caps.length === 0 || (target.includes(".") && !catalogue.byName(target))) {
      problems.push(`[defaults."${target}"]: no capability or area is named ${target}${moved(target)}`);
      continue;
    }
    for (const [input, value] of Object.entries(inputs)) {
      const takers = caps.filter((c) => catalogue.byName(c)?.inputs[input]);
      if (takers.length === 0) problems.push(`[defaults."${target}"]: nothing in ${target} has an input ${input}`);
      for (const c of takers) check(c, input, value, `[defaults."${target}"]`);
    }
  }
  // a limit on a name nothing has limits nothing: a typo that would look as if it held
  for (const name of Object.keys(config.limits?.capabilities ?? {})) {
    if (!catalogue.byName(name) && !areas.has(name))
      problems.push(`[limits.capabilities] "${name}": no capability or area is named ${name}${moved(name)}`);
  }
  for (const [name, c] of Object.entries(config.connections)) {
    if (!areas.has(c.area)) problems.push(`[connections.${name}]: no area is named ${c.area}${moved(c.area)}`);
  }
  for (const [name, p] of Object.entries(config.profiles)) {
    if (!areas.has(p.area)) {
      problems.push(`[profiles.${name}]: no area is named ${p.area}${moved(p.area)}`);
      continue;
    }
    const caps = catalogue.all().filter((c) => c.area === p.area);
    for (const input of [...Object.keys(p.set), ...Object.keys(p.only)]) {
      if (!caps.some((c) => c.inputs[input]))
        problems.push(`[profiles.${name}]: nothing in ${p.area} has an input ${input}`);
    }
  }
  // an area's table is checked for each of its capabilities: a refusal that names no capability is said once
  return [...new Set(problems)];
}

/** Prints what config.toml says that the catalogue would refuse; exits with the usage status when there is any. */
export function configCheck(cli: Cli, opts: { json?: boolean }): number {
  const file = join(dirs(cli.io.env).config, CONFIG_FILE);
  if (!existsSync(file)) {
    cli.io.out(
      outputForm(cli.io, opts.json) === "json"
        ? jsonText(cli.io, { file, problems: [], exists: false })
        : `no ${CONFIG_FILE} yet: rta runs on its defaults\n`,
    );
    return Exit.ok;
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return sayProblems(cli, file, ["cannot be read; check its mode"], opts.json);
  }
  // The check is where a person is sent to learn what is wrong: it says all of it, each as itself, not as a pointer
  // to itself; what reads is checked against the catalogue too.
  const read = readConfig(text);
  const unread = read.problems.map((err) => err.message.replace(/^config\.toml: /, ""));
  return sayProblems(cli, file, [...unread, ...configProblems(read.config, cli.catalogue)], opts.json);
}

/** Prints the problems found in `file` (or that it is fine); exits with the usage status when there is any. */
function sayProblems(cli: Cli, file: string, problems: string[], json: boolean | undefined): number {
  if (outputForm(cli.io, json) === "json") cli.io.out(jsonText(cli.io, { file, problems, exists: true }));
  // shown escaped: a name in the file may hold terminal controls, and the check is where a person reads it
  else
    cli.io.out(
      problems.length === 0 ? `${shown(file)}: fine\n` : `${problems.map((p) => shown(`${file} ${p}`)).join("\n")}\n`,
    );
  return problems.length === 0 ? Exit.ok : Exit.usage;
}
