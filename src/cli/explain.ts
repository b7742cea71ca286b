/**
 * `rta explain [capability]`: one capability's card, or the catalogue by area
 * followed by what is never a tool. The card is a projection of the
 * declaration (src/core/card.ts); this file only lays it out. A name that is
 * never a tool gets the person's command it is (explainPerson.ts).
 */
import type { ChalkInstance } from "chalk";
import { type Card, cardOf, mcpCost } from "../core/card.ts";
import { NEVER_A_TOOL, neverAToolList } from "../core/catalogue.ts";
import { type Config, ConfigSource, usable } from "../core/config.ts";
import { dirs } from "../core/dirs.ts";
import { RtaError } from "../core/errors.ts";
import { movedHint } from "../core/movedAreas.ts";
import { calledSo, closest, didYouMean } from "../core/suggest.ts";
import { personCard, renderPersonCard } from "./explainPerson.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm, paint } from "./io.ts";
import { plainCell } from "./plain.ts";
import { reportError } from "./report.ts";

/**
 * Prints a capability's card, or the whole catalogue (or one area's, with its
 * never-a-tool verbs): on a terminal by area, piped one tab-separated line a
 * capability (name, safety, cost over MCP, summary) and one a never-a-tool
 * verb, JSON with --json. A card is the same text piped; a never-a-tool name
 * (`kv.copy`, `grant`) gets the person's command's card. A name that is
 * neither is core.tool.unknown.
 */
export async function explain(cli: Cli, name: string | undefined, json: boolean | undefined): Promise<number> {
  const { io, catalogue } = cli;
  const form = outputForm(io, json);
  const asJson = form === "json";
  const p = paint(io);
  // What a profile costs is said from the config as it reads; one that does not read says nothing of profiles.
  const config = configOf(cli);
  // an area named alone (`rta explain note`, as docs/plugins.md has a plugin's author check it) lists its capabilities,
  // and so does a group within one (`rta explain audit.kube`, as `rta audit kube --help` names it)
  const area =
    name !== undefined &&
    !catalogue.byName(name) &&
    !catalogue.byTool(name) &&
    (catalogue.areas().includes(name) || catalogue.all().some((c) => c.name.startsWith(`${name}.`)))
      ? name
      : undefined;
  if (name === undefined || area !== undefined) {
    const areas = (area === undefined ? catalogue.areas() : [area]).map((area) => ({
      area,
      capabilities: catalogue
        .all()
        .filter((c) => c.area === area || c.name.startsWith(`${area}.`))
        .map((c) => {
          const card = cardOf(c, "person", new Set(), config);
          const listed = { name: c.name, summary: c.summary, safety: c.safety, mcp: card.mcp };
          return card.with_profile ? { ...listed, with_profile: card.with_profile } : listed;
        }),
    }));
    const never = area === undefined ? neverAToolList() : neverIn(area);
    if (asJson) {
      io.out(jsonText(io, { areas, never_a_tool: never }));
      return 0;
    }
    if (form === "plain") {
      const rows: (string | null)[][] = areas.flatMap((a) =>
        a.capabilities.map((c) => [c.name, c.safety, mcpCost(c), c.summary]),
      );
      for (const n of never) rows.push([n, null, "never a tool", "the person's alone"]);
      io.out(rows.map((r) => `${r.map(plainCell).join("\t")}\n`).join(""));
      return 0;
    }
    let out = "";
    for (const { area, capabilities } of areas) {
      out += `${p.bold(area)}\n`;
      const width = Math.max(...capabilities.map((c) => c.name.length));
      for (const c of capabilities) {
        out += `  ${c.name.padEnd(width)}  ${c.summary}  ${p.dim(`[${c.safety}, ${mcpCost(c)}]`)}\n`;
      }
    }
    if (never.length > 0) {
      out += `\n${p.bold("never a tool")}  ${p.dim("(the person's alone: absent from tools/list on every transport)")}\n`;
      for (const n of never) out += `  ${n}\n`;
    }
    out += `\nrun ${p.bold("rta explain <capability>")} for its card\n`;
    io.out(out);
    return 0;
  }
  const cap = catalogue.byName(name) ?? catalogue.byTool(name);
  if (!cap) {
    try {
      const person = await personCard(cli, name);
      if (person) {
        io.out(asJson ? jsonText(io, person) : renderPersonCard(person, p));
        return 0;
      }
    } catch (err) {
      if (err instanceof RtaError) return reportError(io, err, json === true);
      throw err;
    }
    return reportError(
      io,
      new RtaError(
        "core.tool.unknown",
        `no capability is named ${JSON.stringify(name)}`,
        movedHint(catalogue, name.split(/[._]/)[0] as string) ??
          `${didYouMean(nearNames(catalogue, name), (n) => `rta explain ${n}`)} run \`rta explain\` to list them`.trimStart(),
      ),
      json === true,
    );
  }
  const card = cardOf(cap, "person", new Set(), config);
  io.out(asJson ? jsonText(io, card) : renderCard(card, p));
  return 0;
}

function renderCard(card: Card, p: ChalkInstance): string {
  let out = `${p.bold(card.name)}  ${card.summary}\n`;
  if (card.agent_text) out += `${card.agent_text}\n`;
  out += `\n  command   ${card.command}\n  tool      ${card.tool}\n  safety    ${card.safety}, ${mcpCost(card)}\n`;
  if (card.reaches) out += `  reaches   the destination named by ${card.reaches}\n`;
  if (card.offsite) out += `  offsite   asks ${card.offsite}\n`;
  if (card.reveals) out += "  reveals   the answer is the stored secret itself\n";
  if (card.record)
    out += `  narrows   a grant can be narrowed to one ${card.record}: rta grant allow ${card.name} <${card.record}> ...\n`;
  if (card.also_called.length) out += `  also      ${card.also_called.join(", ")}\n`;
  out += `\n${p.bold("inputs")}\n`;
  if (card.inputs.length === 0) out += "  none\n";
  for (const input of card.inputs) {
    const notes: string[] = [input.type];
    if (input.required) notes.push("required");
    if (input.options) notes.push(`one of ${input.options.join("|")}`);
    if (input.range) notes.push(`${input.range[0]}..${input.range[1]}`);
    if (input.default !== undefined) notes.push(`default ${input.default}`);
    if (input.from_pipe) notes.push("read from stdin on the CLI when left out, required over MCP");
    if (input.operator_only) notes.push("operator only");
    if (input.widens) notes.push(`widens ${input.widens}: refused under a profile that fences ${input.widens}`);
    out += `  ${input.name}  ${input.description}  ${p.dim(`(${notes.join(", ")})`)}\n`;
  }
  out += `\n${p.bold("result")}  ${card.result.shape}\n`;
  for (const col of card.result.columns ?? []) out += `  ${col.name}  ${col.doc}\n`;
  out += `\n${p.bold("examples")}\n`;
  for (const e of card.examples) out += `  ${e.command}\n    ${p.dim(e.note)}\n`;
  return out;
}

function configOf(cli: Cli): Config | undefined {
  return usable(ConfigSource.inConfigDir(dirs(cli.io.env).config).current());
}

/** The capabilities `name` calls by what they do (`cat`, `ps`), else those whose dotted or tool name is close to it. */
function nearNames(catalogue: Cli["catalogue"], name: string): string[] {
  const doing = calledSo(catalogue, name);
  if (doing.length > 0) return doing;
  return closest(name.replaceAll("_", "."), [...catalogue.all().map((c) => c.name), ...NEVER_A_TOOL.verbs]);
}

/** The never-a-tool verbs of one area (`kv` -> `kv copy`, `kv edit`), as the listing names them. */
function neverIn(area: string): string[] {
  return NEVER_A_TOOL.verbs.filter((v) => v.startsWith(`${area}.`)).map((v) => v.replace(".", " "));
}
