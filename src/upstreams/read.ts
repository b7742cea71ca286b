/**
 * One read of a selected resource (resources/read) or get of a selected
 * prompt (prompts/get) at its upstream, and its answer in rta's shape (an
 * `object` the MCP front gives back as the protocol's result). A resource's
 * contents must be of the URI asked for, and are said under the URI rta
 * offers; text only (a blob cannot be masked, so it is refused,
 * upstream.result.unsupported), as is a prompt's message that is not text.
 * Errors are said as a tool call's: the upstream's own as upstream.<name>.error
 * with its text masked, a failed connection as upstream.unavailable.
 */
import { ProtocolError } from "@modelcontextprotocol/client";
import { type Code, RtaError } from "../core/errors.ts";
import type { ResultValue } from "../core/result.ts";
import { tooLarge } from "../gate/bound.ts";
import { type CallLimits, malformed, malformedAnswer, unavailable } from "./call.ts";
import { type UpstreamConnection, unreachable } from "./connection.ts";
import { type ExposedItem, mediaType } from "./exposed.ts";
import { masked } from "./secrets.ts";

/** Reads `item` at its upstream; refuses as callUpstream does, and upstream.result.unsupported. */
export async function readAtUpstream(
  connection: UpstreamConnection,
  item: ExposedItem,
  request: { uri: string } | { arguments: Record<string, string> },
  signal: AbortSignal,
  secrets: readonly string[],
  limits: CallLimits,
): Promise<ResultValue> {
  const name = item.upstream;
  let answer: Record<string, unknown>;
  try {
    const client = await connection.connected();
    const options = { signal, timeout: limits.callMs };
    answer =
      "uri" in request
        ? ((await client.readResource({ uri: request.uri }, options)) as unknown as Record<string, unknown>)
        : ((await client.getPrompt(
            { name: item.selected.name, arguments: request.arguments },
            options,
          )) as unknown as Record<string, unknown>);
  } catch (err) {
    if (signal.aborted) throw new RtaError("core.call.cancelled", "the caller cancelled the call before it finished");
    if (err instanceof ProtocolError) {
      const said = masked(err.message, secrets).slice(0, 4096) || "it gave no reason";
      throw new RtaError(`upstream.${name}.error` as Code, said, `the upstream ${name} refused or failed the read`);
    }
    if (malformedAnswer(err)) throw malformed(name, err, "read");
    const why = unreachable(err, connection.takeCut());
    if (!why.backingOff && !why.timedOut) connection.drop();
    if (why.tooLarge !== undefined) throw tooLarge(why.tooLarge, limits.hard);
    throw unavailable(name, why.message);
  }
  const value = "uri" in request ? contentsOf(item, request.uri, answer) : messagesOf(item, answer);
  return { type: "object", value: JSON.parse(masked(JSON.stringify(value), secrets)) as Record<string, unknown> };
}

function unsupported(item: ExposedItem, what: string): RtaError {
  return new RtaError(
    "upstream.result.unsupported",
    `upstream ${item.upstream} answered the ${item.selected.kind} with ${what}, which rta does not pass on`,
    "ask the person running rta for a resource or prompt the upstream gives as text",
  );
}

function contentsOf(item: ExposedItem, physical: string, answer: Record<string, unknown>): Record<string, unknown> {
  const list = Array.isArray(answer.contents) ? (answer.contents as Record<string, unknown>[]) : [];
  const contents = list.map((c) => {
    // contents of another URI than the one asked are not what the operator selected
    if (c?.uri !== physical) throw unsupported(item, "contents of another URI");
    if (typeof c.text !== "string") throw unsupported(item, "binary contents (a blob)");
    // said under the URI the agent read (the MCP front sets it): never the upstream's
    const mimeType = mediaType(c.mimeType);
    return { ...(mimeType !== undefined ? { mimeType } : {}), text: c.text };
  });
  return { contents };
}

function messagesOf(item: ExposedItem, answer: Record<string, unknown>): Record<string, unknown> {
  const list = Array.isArray(answer.messages) ? (answer.messages as Record<string, unknown>[]) : [];
  const messages = list.map((m) => {
    const content = m?.content as Record<string, unknown> | undefined;
    if (content?.type !== "text" || typeof content.text !== "string")
      throw unsupported(item, `a ${JSON.stringify(String(content?.type).slice(0, 40))} message`);
    return { role: m.role === "assistant" ? "assistant" : "user", content: { type: "text", text: content.text } };
  });
  return {
    ...(typeof answer.description === "string" ? { description: answer.description } : {}),
    messages,
  };
}
