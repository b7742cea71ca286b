/**
 * Maven's pom.xml, read by the small XML reader: each dependency (and each
 * in dependencyManagement) whose version is written out, or is a
 * `${property}` the pom itself defines. A range or a version the pom leaves
 * to a parent or a BOM is not a pin, and is left out.
 */
import { type Dep, unique } from "./types.ts";
import { child, parseXml, type XmlElement } from "./xml.ts";

function textOf(el: XmlElement | undefined): string | undefined {
  const t = el?.text.trim();
  return t === undefined || t === "" ? undefined : t;
}

/** `${name}` replaced from the properties given, once; undefined when one is unknown. */
function resolve(value: string | undefined, props: Map<string, string>): string | undefined {
  if (value === undefined) return undefined;
  let out = "";
  let i = 0;
  while (i < value.length) {
    const open = value.indexOf("${", i);
    if (open < 0) return out + value.slice(i);
    const close = value.indexOf("}", open);
    if (close < 0) return undefined;
    const v = props.get(value.slice(open + 2, close));
    if (v === undefined) return undefined;
    out += value.slice(i, open) + v;
    i = close + 1;
  }
  return out;
}

/** pom.xml's pinned dependencies as `groupId:artifactId`; throws on XML it cannot read or a root not `project`. */
export function parsePom(text: string): Dep[] {
  const project = parseXml(text);
  if (project.name !== "project") throw new Error("the root element is not <project>");
  const props = new Map<string, string>();
  for (const p of child(project, "properties")?.children ?? []) {
    const v = textOf(p);
    if (v !== undefined) props.set(p.name, v);
  }
  const parent = child(project, "parent");
  const group = textOf(child(project, "groupId")) ?? textOf(child(parent, "groupId"));
  const version = textOf(child(project, "version")) ?? textOf(child(parent, "version"));
  if (group !== undefined) props.set("project.groupId", group);
  if (version !== undefined) props.set("project.version", version);
  const lists = [child(project, "dependencies"), child(project, "dependencyManagement", "dependencies")];
  const out: Dep[] = [];
  for (const list of lists) {
    for (const dep of list?.children ?? []) {
      if (dep.name !== "dependency") continue;
      const g = resolve(textOf(child(dep, "groupId")), props);
      const a = resolve(textOf(child(dep, "artifactId")), props);
      const v = resolve(textOf(child(dep, "version")), props);
      if (!g || !a || !v || "[(".includes(v[0] as string)) continue;
      out.push({ name: `${g}:${a}`, version: v, ecosystem: "Maven" });
    }
  }
  return unique(out);
}
