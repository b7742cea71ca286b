/** Where a capability rta did not build came from: a plugin's binary, or an upstream MCP server's tool. */

/** The plugin a capability came from: its binary as it was described, pinned by digest. */
export interface PluginRef {
  /** `note` for rta-plugin-note: the area prefix of every capability it declares */
  name: string;
  version: string;
  /** sha256 (hex) of the binary that answered `describe` */
  digest: string;
  /** the installed binary that is run */
  file: string;
}

/**
 * The upstream MCP server's tool a capability stands for (src/upstreams/): the upstream's name (the area), the tool's
 * own name, the sha256 of its canonical definition, and its input schema, offered as it is once ajv compiled it.
 */
export type UpstreamRef = {
  name: string;
  tool: string;
  digest: string;
  inputSchema: Record<string, unknown>;
  /** the digest of the upstream's approval, which a grant on it or its tools binds to */
  pin?: string;
};
