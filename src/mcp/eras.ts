/**
 * The protocol revisions a server speaks: the stateless one, and the `initialize` flow before it. Alone in its file
 * so the completion of `rta mcp inspect --era` names them without loading the MCP client.
 */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type InspectEra = (typeof ERAS)[number];

/** Whether a negotiated revision is of the 2026-07-28 era (a later one is too, as the SDK holds); none is not. Refuses nothing. */
export function isModernRevision(version: string | undefined): boolean {
  return (version ?? "") >= "2026-07-28";
}
