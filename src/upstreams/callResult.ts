/**
 * A tools/call result rta read itself (connection.ts), checked once as the
 * SDK's client checks one by its schema (2025-11-25): an object whose
 * `content` is a list of text, image, audio, resource link and embedded
 * resource blocks with the members each needs, an `isError` that is a
 * boolean, a `_meta` that is an object. What each block then means (a mime
 * type of its kind, base64 data, the bound) is call.ts's to check.
 */

/** A tools/call result refused as no result in MCP's shape: `fault` says what is wrong, in rta's words. */
export class InvalidResult extends Error {
  constructor(readonly fault: string) {
    super(`Invalid result for tools/call: ${fault}`);
    this.name = "InvalidResult";
  }
}

/** True for a plain object (not an array, not null). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What is wrong with one content block, or undefined when nothing is. */
function blockFault(block: unknown): string | undefined {
  if (!isRecord(block)) return "a content block that is not an object";
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? undefined : "a text block with no text";
    case "image":
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string"
        ? undefined
        : `an ${block.type} block with no data or mime type`;
    case "resource_link":
      return typeof block.uri === "string" && typeof block.name === "string"
        ? undefined
        : "a resource link with no uri";
    case "resource":
      return isRecord(block.resource) && typeof block.resource.uri === "string"
        ? undefined
        : "an embedded resource with no uri";
    default:
      return "a content block of no known type";
  }
}

/**
 * `result` when it is a tools/call result as the SDK's schema takes one;
 * refuses (throws InvalidResult, as the SDK's client does an invalid result) otherwise.
 */
export function checkedCallResult(result: unknown): Record<string, unknown> {
  const fault = !isRecord(result)
    ? "not an object"
    : result.content !== undefined && !Array.isArray(result.content)
      ? "its content is not a list"
      : result.isError !== undefined && typeof result.isError !== "boolean"
        ? "its isError is not a boolean"
        : result._meta !== undefined && !isRecord(result._meta)
          ? "its _meta is not an object"
          : ((result.content as unknown[] | undefined) ?? []).map(blockFault).find((f) => f !== undefined);
  if (fault !== undefined) throw new InvalidResult(fault);
  return result as Record<string, unknown>;
}
