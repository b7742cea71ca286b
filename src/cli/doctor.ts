/**
 * `rta doctor`: checks what rta needs (config, dirs, roots, the record file,
 * the grant store) and prints each finding with its fix. Exits 0 when all is
 * well. Never a tool.
 */
import { accessSync, closeSync, constants, existsSync, lstatSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Capability, needsGrant, PROFILE_INPUT } from "../core/capability.ts";
import { readConfig } from "../core/config.ts";
import { dirs, RECORD_FILE } from "../core/dirs.ts";
import type { RtaError } from "../core/errors.ts";
import { Exit } from "../core/errors.ts";
import { movedData } from "../core/movedAreas.ts";
import { GATE_STORE_FILE, GateStore, RECORD_CHECKPOINT_FILE } from "../gate/gateStore.ts";
import { agentRules } from "../gate/paths/rules.ts";
import { POLICY_FILE, parsePolicy } from "../gate/policy.ts";
import { isPostgresUrl, PgGateStore } from "../gate/store/pgStore.ts";
import { storeLockHolders } from "../gate/storeLock.ts";
import { configProblems } from "./configCmd.ts";
import { pluginFindings } from "./doctorPlugins.ts";
import { checkRoots, type RootSource, servedRoots } from "./doctorRoots.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm, paint } from "./io.ts";
import { kvFindings } from "./kvDoctor.ts";
import { shown } from "./render.ts";
import { upstreamFindings } from "./upstreamDoctor.ts";

export interface Finding {
  check: string;
  status: "ok" | "note" | "fail";
  detail: string;
  fix?: string;
  /** for a root: where it came from (--root, config's roots, or the current directory as the default) */
  source?: RootSource;
}

/** Prints each check with its fix, and exits 1 when any fails; it opens the grant store only where the data dir is. */
export function doctor(cli: Cli, opts: { json?: boolean; root?: string[] }): number {
  const d = dirs(cli.io.env);
  const findings: Finding[] = [];
  const add = (check: string, status: Finding["status"], detail: string, fix?: string, source?: RootSource) =>
    findings.push({
      check,
      status,
      detail,
      ...(fix === undefined ? {} : { fix }),
      ...(source === undefined ? {} : { source }),
    });

  for (const [name, dir] of [
    ["data dir", d.data],
    ["config dir", d.config],
  ] as const) {
    if (!existsSync(dir)) add(name, "note", `${dir} does not exist yet`, "nothing to do: rta makes it on first use");
    else if (!statSync(dir).isDirectory())
      add(
        name,
        "fail",
        `${dir} is not a directory`,
        `move it aside, or point ${name === "data dir" ? "RTA_DATA_DIR" : "RTA_CONFIG_DIR"} at a directory`,
      );
    else {
      try {
        accessSync(dir, constants.W_OK | constants.X_OK);
        add(name, "ok", dir);
      } catch {
        add(name, "fail", `${dir} is not writable`, `make it yours: chown -R "$USER" ${dir}`);
      }
    }
  }

  const configFile = join(d.config, "config.toml");
  let roots: string[] = [];
  let hardlinks = false;
  let sharedStore: string | undefined;
  if (!existsSync(configFile))
    add(
      "config",
      "note",
      `no ${configFile}`,
      "nothing to do: rta runs on its defaults; write one to set roots, defaults, connections and profiles",
    );
  else {
    let text: string | undefined;
    try {
      text = readFileSync(configFile, "utf8");
    } catch {
      add("config", "fail", `${configFile} cannot be read`, `check its mode: it is read by whoever runs rta`);
    }
    if (text !== undefined) {
      const read = readConfig(text);
      // a config that does not read is not used at all: its roots are not served, as a server would not
      if (read.problems.length === 0) {
        roots = read.config.roots;
        hardlinks = read.config.hardlinks;
        sharedStore = read.config.store;
      }
      const problems = [
        ...read.problems.map((err) => err.message.replace(/^config\.toml: /, "")),
        ...configProblems(read.config, cli.catalogue),
      ];
      if (problems.length === 0) add("config", "ok", configFile);
      for (const p of problems) add("config", "fail", `${configFile} ${p}`, "fix that line");
    }
  }

  const policyFile = join(d.config, POLICY_FILE);
  if (existsSync(policyFile)) {
    try {
      const policy = parsePolicy(readFileSync(policyFile, "utf8"));
      add("team policy", "ok", policyFile);
      if (policy.grantFrom === undefined) selfGrant(add, policyFile);
      else
        add(
          "grants",
          "ok",
          `issued only ${policy.grantFrom === "terminal" ? "from a person's terminal" : "once rta operator approves"} (grant_from)`,
        );
      // A name spelled right that nothing has stops nothing today: a typo, or a plugin not installed yet.
      const areas = cli.catalogue.areas();
      for (const name of policy.never.filter((n) => !cli.catalogue.byName(n) && !areas.includes(n)))
        add(
          "team policy",
          "note",
          `never names ${JSON.stringify(name)}, which no capability or area here is called`,
          `check the spelling in ${policyFile} (\`rta explain\` lists them); a plugin's name holds once it is installed`,
        );
      for (const [name, what] of freeReadsNamed(policy.never, cli.catalogue.all()))
        add(
          "team policy",
          "note",
          `never names ${JSON.stringify(name)}, ${what}: a free read has no grant to cap, so never has no effect on it`,
          `a lock is the way to stop it: \`rta lock ${name}\``,
        );
    } catch (err) {
      add("team policy", "fail", (err as Error).message, `fix ${policyFile}; until then no grant is issued or spent`);
    }
  } else {
    add("team policy", "note", "no team policy", `write ${policyFile} to cap what grants may do`);
    selfGrant(add, policyFile);
  }

  checkRoots(servedRoots(opts.root ?? [], roots), configFile, agentRules(d, hardlinks), add);

  // the shared store RTA_STORE (or --store) or config names: a PostgreSQL one keeps the record too
  const shared = cli.io.env.RTA_STORE || sharedStore;
  const record = join(d.data, RECORD_FILE);
  // A data dir that is there and not a dir is said once, above: there is no record inside it to look at.
  const dataStat = statSync(d.data, { throwIfNoEntry: false });
  const recordStat = dataStat?.isDirectory() ? lstatSync(record, { throwIfNoEntry: false }) : undefined;
  if (dataStat && !dataStat.isDirectory()) {
    add("record", "fail", `${record} cannot be kept: the data dir is not a directory`, "see the data dir above");
  } else if (recordStat && !recordStat.isFile()) {
    // Servers write only to a file of its own at that name (never through a link, never to a FIFO, which an
    // open for writing here would also wait on for good), so each call is refused until it is one.
    add(
      "record",
      "fail",
      `${record} is not a file (a link, a FIFO or a dir), so every agent call is refused`,
      `move it aside: mv ${record} ${record}.aside`,
    );
  } else if (recordStat) {
    try {
      const { O_WRONLY, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;
      closeSync(openSync(record, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK));
      add("record", "ok", record);
    } catch {
      add("record", "fail", `${record} cannot be appended to`, `make it yours: chown "$USER" ${record}`);
    }
  } else if (!isPostgresUrl(shared ?? ""))
    // with a PostgreSQL store the servers write the record there (said under "shared store")
    add("record", "note", `${record} does not exist yet`, "nothing to do: the first agent call makes it");
  // The record's checkpoint, beside it: said only when it stops calls, as the record is.
  const checkpoint = join(d.data, RECORD_CHECKPOINT_FILE);
  const checkpointStat = dataStat?.isDirectory() ? lstatSync(checkpoint, { throwIfNoEntry: false }) : undefined;
  if (checkpointStat && (!checkpointStat.isFile() || checkpointStat.nlink !== 1))
    add(
      "record",
      "fail",
      `${checkpoint} is not a file of its own (a link, a FIFO, a dir or a hard link), so every agent call is refused`,
      `move it aside: mv ${checkpoint} ${checkpoint}.aside`,
    );
  else if (checkpointStat)
    try {
      const { O_RDWR, O_NOFOLLOW, O_NONBLOCK } = constants;
      closeSync(openSync(checkpoint, O_RDWR | O_NOFOLLOW | O_NONBLOCK));
      // a server makes it 0600 when it opens it, which only its owner (or root) may
      const euid = process.geteuid?.();
      if (euid !== undefined && euid !== 0 && checkpointStat.uid !== euid) throw new Error("not this user's");
    } catch {
      add("record", "fail", `${checkpoint} cannot be written`, `make it yours: chown "$USER" ${checkpoint}`);
    }

  if (existsSync(d.data)) {
    try {
      const store = join(d.data, GATE_STORE_FILE);
      new GateStore(store).close();
      // A process stopped while holding the store's write lock holds it for good (a stdio server is its client's
      // child, and a client can stop it): every server's calls are refused, and grants and locks cannot be set.
      const stuck = storeLockHolders(store).filter((h) => h.stopped);
      const first = stuck[0];
      if (first)
        add(
          "grant store",
          "fail",
          `${store} is held locked by stopped process ${stuck.map((h) => h.pid).join(", ")}: every agent call is refused, and no grant or lock can be set`,
          `resume it (kill -CONT ${first.pid}) or end it (kill ${first.pid})`,
        );
      else add("grant store", "ok", store);
    } catch (err) {
      add("grant store", "fail", (err as Error).message, "check the data dir's owner and free space");
    }
  }

  if (shared && !isPostgresUrl(shared))
    add(
      "shared store",
      "fail",
      "RTA_STORE or config's store is not a postgres:// URL",
      "name it as postgres://user@host:5432/db, or unset it to keep the store in the data dir",
    );
  else if (shared) {
    // named without its password, as every message of the shared store is
    try {
      const store = new PgGateStore(shared);
      add("shared store", "ok", `${store.label}: grants, locks, tokens, rate buckets and the record`);
      store.close();
    } catch (err) {
      add("shared store", "fail", (err as Error).message, (err as RtaError).hint ?? "check the store's URL");
    }
  }

  pluginFindings(cli, add);
  upstreamFindings(cli, add);
  kvFindings(cli, add);
  for (const m of movedData(cli.catalogue, d.data))
    add(`plugin ${m.area}`, "note", `${m.dir} holds ${m.area}s, and no plugin reads them`, m.fix);

  const failed = findings.some((f) => f.status === "fail");
  const form = outputForm(cli.io, opts.json);
  if (form === "json") cli.io.out(jsonText(cli.io, { ok: !failed, findings }));
  else if (form === "plain")
    // one finding a line, tab-separated: status, check, detail, fix; a tab or newline inside a field is escaped (shown)
    for (const f of findings) cli.io.out(`${[f.status, f.check, f.detail, f.fix ?? ""].map(shown).join("\t")}\n`);
  else {
    const p = paint(cli.io);
    const mark = { ok: p.green("ok  "), note: p.yellow("note"), fail: p.red("FAIL") };
    for (const f of findings) {
      cli.io.out(`${mark[f.status]}  ${f.check}: ${shown(f.detail)}\n`);
      if (f.fix && f.status !== "ok") cli.io.out(`      fix: ${shown(f.fix)}\n`);
    }
  }
  return failed ? Exit.failure : Exit.ok;
}

/**
 * The `never` entries that name only free reads (a capability, or an area all of whose capabilities are), each with
 * what it names: no grant pays for a free read, so the ceiling never reaches it. A read that takes a profile is not
 * free when a call names one, and is left out. Refuses nothing.
 */
export function freeReadsNamed(never: readonly string[], caps: readonly Capability[]): [string, string][] {
  const free = (c: Capability) => !needsGrant(c) && !(PROFILE_INPUT in c.inputs);
  return never.flatMap((name): [string, string][] => {
    const named = caps.filter((c) => c.name === name || c.area === name);
    if (named.length === 0 || !named.every(free)) return [];
    return [[name, named.some((c) => c.name === name) ? "a free read" : "an area of free reads"]];
  });
}

/**
 * The note doctor gives while the policy sets no grant_from: `rta grant allow`
 * from any shell, piped too, issues without asking, so an agent with a shell
 * tool that runs as this user can grant itself anything the ceiling allows.
 */
function selfGrant(
  add: (check: string, status: "note", detail: string, fix: string) => void,
  policyFile: string,
): void {
  add(
    "grants",
    "note",
    "any shell can issue a grant, piped without asking: that is the self-grant path of an agent with a shell tool run as you",
    `set grant_from = "terminal" in ${policyFile}, or run the agent as another user (docs/agents-with-a-shell.md)`,
  );
}
