/**
 * A small XML reader for pom.xml: a tokenizer for tags, text, comments,
 * CDATA and processing instructions, and a tree of elements built from it.
 * Namespaces are kept in names as written; DTDs are passed over, never read.
 */

/** An element: its local name (any `prefix:` left off), its child elements and the text directly in it. */
export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Text with its five named entities and numeric references decoded; an unknown one is kept as written. */
export function decodeEntities(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf("&", i);
    const semi = amp < 0 ? -1 : text.indexOf(";", amp);
    if (amp < 0 || semi < 0) return out + text.slice(i);
    out += text.slice(i, amp);
    const ref = text.slice(amp + 1, semi);
    const code = ref.startsWith("#x")
      ? Number.parseInt(ref.slice(2), 16)
      : ref.startsWith("#")
        ? Number(ref.slice(1))
        : NaN;
    if (ENTITIES[ref] !== undefined) out += ENTITIES[ref];
    else if (Number.isInteger(code) && code > 0 && code <= 0x10ffff) out += String.fromCodePoint(code);
    else out += `&${ref};`;
    i = semi + 1;
  }
  return out;
}

/** The name a tag begins with: up to a space, `/` or `>`, its prefix left off. */
function tagName(tag: string): string {
  let end = 0;
  while (end < tag.length && !" \t\r\n/>".includes(tag[end] as string)) end++;
  const name = tag.slice(0, end);
  return name.slice(name.indexOf(":") + 1);
}

/**
 * The document's root element. Throws a plain Error on a tag left open, a
 * close that matches no open, or a document with no element.
 */
export function parseXml(text: string): XmlElement {
  const top: XmlElement = { name: "", children: [], text: "" };
  const stack: XmlElement[] = [top];
  let i = 0;
  const here = () => stack[stack.length - 1] as XmlElement;
  const until = (end: string, from: number) => {
    const at = text.indexOf(end, from);
    if (at < 0) throw new Error(`unterminated markup at offset ${from}`);
    return at;
  };
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    if (lt < 0) {
      here().text += decodeEntities(text.slice(i));
      break;
    }
    here().text += decodeEntities(text.slice(i, lt));
    if (text.startsWith("<!--", lt)) i = until("-->", lt + 4) + 3;
    else if (text.startsWith("<![CDATA[", lt)) {
      const end = until("]]>", lt + 9);
      here().text += text.slice(lt + 9, end);
      i = end + 3;
    } else if (text.startsWith("<?", lt)) i = until("?>", lt + 2) + 2;
    else if (text.startsWith("<!", lt)) i = skipDeclaration(text, lt);
    else {
      const gt = tagEnd(text, lt);
      const tag = text.slice(lt + 1, gt);
      if (tag.startsWith("/")) {
        const name = tagName(tag.slice(1));
        if (stack.length < 2 || here().name !== name) throw new Error(`</${name}> closes nothing open`);
        stack.pop();
      } else {
        const el: XmlElement = { name: tagName(tag), children: [], text: "" };
        here().children.push(el);
        if (!tag.endsWith("/")) stack.push(el);
      }
      i = gt + 1;
    }
  }
  if (stack.length > 1) throw new Error(`<${here().name}> is never closed`);
  const root = top.children[0];
  if (!root) throw new Error("no element");
  return root;
}

/** Where a tag's `>` is, passing over quoted attribute values. */
function tagEnd(text: string, lt: number): number {
  let quote = "";
  for (let j = lt + 1; j < text.length; j++) {
    const c = text[j] as string;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ">") return j;
  }
  throw new Error(`unterminated tag at offset ${lt}`);
}

/** Past a `<!DOCTYPE …>` and any internal subset in brackets. */
function skipDeclaration(text: string, lt: number): number {
  let depth = 0;
  for (let j = lt + 2; j < text.length; j++) {
    if (text[j] === "[") depth++;
    else if (text[j] === "]") depth--;
    else if (text[j] === ">" && depth <= 0) return j + 1;
  }
  throw new Error(`unterminated declaration at offset ${lt}`);
}

/** The first child of that name, following a path of names; undefined when one is missing. */
export function child(el: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let at = el;
  for (const name of path) at = at?.children.find((c) => c.name === name);
  return at;
}
