/**
 * End to end: a consent question says the profile a call names. The same
 * arguments under another profile reach another place (its connection), so
 * a person asked about one must not be shown what reads as the other.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

useNotePlugin();

test("the profile a call names is in the question, first", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  writeFileSync(
    join(config, "config.toml"),
    `[connections.prod-notes]\narea = "note"\nfolder = "${tempDir()}"\n[profiles.prod]\narea = "note"\nconnection = "prod-notes"\n`,
  );
  writeFileSync(join(config, "policy.toml"), 'confirm = ["note.add"]\n');
  const asked: string[] = [];
  const s = await connect("legacy", ["--agent", "claude"], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return { action: "decline" as const };
      }),
  });
  try {
    const granted = await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m", "--profile", "prod"], {
      env,
    });
    expect(granted.code).toBe(0);
    const r = await s.client.callTool({ name: "note_add", arguments: { title: "a", body: "b", profile: "prod" } });
    expect(resultJson(r).code).toBe("core.consent.declined");
    expect(asked[0]?.split("\n")[1]).toBe("profile: prod");
  } finally {
    await s.close();
  }
}, 30_000);
