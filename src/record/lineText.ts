/**
 * A record line's bytes and its mac, from fixed-order templates. The mac is
 * HMAC-SHA256 of the previous line's mac, a newline and the line's canonical
 * JSON without its mac (chain.ts says why): the fields in the order their
 * names sort, undefined ones left out. Each field is spelled once and put in
 * that order for the mac, so no generic walk sorts keys a line, and in the
 * order rta has always written for the line itself: what is written is what
 * `JSON.stringify(JSON.parse(line))` gives, as the verifier asks.
 *
 * What repeats from line to line (the agent, client, session and transport
 * of a server's calls) is kept spelled from the line before.
 */
import type { RecordEntry } from "./line.ts";

/** JSON.stringify of a string, kept for the one text most recently asked for in each slot. */
class Spelled {
  private text: string | undefined;
  private json = "";
  of(text: string): string {
    if (text !== this.text) {
      this.text = text;
      this.json = JSON.stringify(text);
    }
    return this.json;
  }
}

const agentJson = new Spelled();
const clientJson = new Spelled();
const sessionJson = new Spelled();
const transportJson = new Spelled();

/** Each field of a line spelled as JSON once, for the two orders it is put in. */
function spell(e: RecordEntry, seq: number, n: number) {
  const c = e.args_cut;
  const err = e.error;
  return {
    kind: e.kind === undefined ? "" : `"kind":${JSON.stringify(e.kind)},`,
    time: `"time":${JSON.stringify(e.time)},`,
    session: `"session":${sessionJson.of(e.session)},`,
    agent: `"agent":${agentJson.of(e.agent)},`,
    client: `"client":${clientJson.of(e.client)},`,
    transport: `"transport":${transportJson.of(e.transport)},`,
    capability: `"capability":${JSON.stringify(e.capability)},`,
    outcome: `"outcome":${JSON.stringify(e.outcome)},`,
    probe: e.probe === undefined ? "" : `"probe":${JSON.stringify(e.probe)},`,
    grant: e.grant === undefined ? "" : `"grant":${JSON.stringify(e.grant)},`,
    duration: `"duration_ms":${JSON.stringify(e.duration_ms)},`,
    args: `"args":${JSON.stringify(e.args)},`,
    argsCut:
      c === undefined
        ? ""
        : `"args_cut":{"bytes":${JSON.stringify(c.bytes)},"names":${JSON.stringify(c.names)},"sha256":${JSON.stringify(c.sha256)}},`,
    error:
      err === undefined
        ? ""
        : `"error":{${err.detail === undefined ? "" : `"detail":${JSON.stringify(err.detail)},`}${err.hint === undefined ? "" : `"hint":${JSON.stringify(err.hint)},`}"message":${JSON.stringify(err.message)}},`,
    pid: e.pid === undefined ? "" : `"pid":${JSON.stringify(e.pid)},`,
    via: e.via === undefined ? "" : `"via":${JSON.stringify(e.via)},`,
    seq: `"seq":${seq},`,
    n: `"n":${n},`,
  };
}

/**
 * An HMAC keyed with the last key asked for, copied for each line: a copy
 * starts where the key left the hash, so the key is not worked in again per
 * line (a quarter of the mac's cost). A different key, or the same buffer
 * changed, makes a new one.
 */
let keyed: { key: Buffer; hmac: Bun.CryptoHasher } | undefined;

/** The keyed HMAC-SHA256 of `prev`, a newline and `body`, in hex. Refuses nothing. */
export function macOf(key: Buffer, prev: string, body: string): string {
  if (keyed === undefined || !keyed.key.equals(key))
    keyed = { key: Buffer.from(key), hmac: new Bun.CryptoHasher("sha256", key) };
  return keyed.hmac.copy().update(`${prev}\n${body}`).digest("hex");
}

/**
 * The line an entry becomes as place `prev.n + 1` of the chain and `seq` of
 * its session: its place, its mac and the text written (without its
 * newline). Refuses nothing.
 */
export function sealLine(
  key: Buffer,
  entry: RecordEntry,
  seq: number,
  prev: { n: number; mac: string },
): { n: number; mac: string; text: string } {
  const n = prev.n + 1;
  const f = spell(entry, seq, n);
  // The fields in the order their names sort: the canonical JSON the mac is of (its last comma made a brace).
  const sorted = `{${f.agent}${f.args}${f.argsCut}${f.capability}${f.client}${f.duration}${f.error}${f.grant}${f.kind}${f.n}${f.outcome}${f.pid}${f.probe}${f.seq}${f.session}${f.time}${f.transport}${f.via}`;
  const mac = macOf(key, prev.mac, `${sorted.slice(0, -1)}}`);
  // Written in the order rta has always written a line, the mac last.
  const text = `{${f.kind}${f.time}${f.session}${f.agent}${f.client}${f.transport}${f.via}${f.capability}${f.outcome}${f.probe}${f.grant}${f.duration}${f.args}${f.argsCut}${f.error}${f.pid}${f.seq}${f.n}"mac":"${mac}"}`;
  return { n, mac, text };
}
