/**
 * End to end: a credential in a file an agent reads is masked whatever the
 * agent's own words were. A pattern or a filter that spells part of a
 * credential (its header, its parameter, a prefix of the value, the whole
 * value) used to be kept as the agent's own and so shielded the rest of the
 * secret from redaction.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

/** Each secret is a word found nowhere else in the fixture, so its tail showing anywhere is a leak. */
const SECRETS = {
  bearer: "Zq81bearerSECRETvalue",
  basic: "YWxpY2U6aHVudGVyMg",
  query: "Zq82querySECRETvalue",
  accessKey: "Zq83accessSECRETvalue",
  cookie: "Zq84cookieSECRETvalue",
  cookie2: "Zq85secondCookieSECRET",
  apiKey: "Zq86apikeySECRETvalue",
  password: "Zq87passwordSECRET",
  userinfo: "Zq88userinfoSECRET",
  json: "Zq89jsonSECRETvalue",
  digest: "Zq90digestSECRETresponse",
  refresh: "Zq91refreshSECRETvalue",
};

const FIXTURE = [
  `GET /api HTTP/1.1`,
  `Authorization: Bearer ${SECRETS.bearer}`,
  `authorization:basic ${SECRETS.basic}`,
  `url=https://api.example.test/v1?page=2&token=${SECRETS.query}&x=1`,
  `access_token: ${SECRETS.accessKey}`,
  `Cookie: session=${SECRETS.cookie}, theme=${SECRETS.cookie2}`,
  `X-API-KEY :\t${SECRETS.apiKey}`,
  `login https://db.example.test/x?user=u&password=${SECRETS.password}`,
  `clone https://alice:${SECRETS.userinfo}@git.example.test/repo.git`,
  `{"refresh_token":"${SECRETS.refresh}","client_secret": "${SECRETS.json}"}`,
  `Proxy-Authorization: Digest username="u", response="${SECRETS.digest}"`,
  `nothing secret here`,
  ``,
].join("\n");

/** Patterns an agent might send: a header's start, a parameter, a prefix of a value, a whole value, any case. */
const PATTERNS = [
  "Authorization: B",
  "Authorization: Bearer Zq81",
  "authorization",
  "AUTHORIZATION:BASIC",
  "&token=",
  "&token=Zq82q",
  "access_token: S",
  "access_token: Zq83",
  "Cookie: s",
  "theme=",
  "X-API-KEY :",
  "password=",
  "password=Zq87",
  "https://alice:",
  "alice:Zq88",
  "refresh_token",
  '"client_secret": "Zq89',
  "response=",
  SECRETS.bearer,
  SECRETS.cookie2,
  "SECRET",
  "Zq",
  ".",
];

/** Text the agent was given holds no secret and no tail of one (the agent may have sent a head). */
function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(4));
  }
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`an agent's words never unmask a credential, ${era} era`, () => {
    let s: Connected;
    let root = "";
    beforeAll(async () => {
      root = tempDir();
      writeFileSync(join(root, "app.log"), FIXTURE);
      s = await connect(era, ["--agent", "claude", "--root", root]);
    });
    afterAll(async () => {
      await s.close();
    });

    const text = async (name: string, args: Record<string, unknown>) => {
      const r = resultJson(await s.client.callTool({ name, arguments: args }));
      return JSON.stringify(r);
    };

    test("fs_read masks every credential in the fixture", async () => {
      const whole = await text("fs_read", { path: "app.log" });
      expect(whole).toContain("Authorization: ***");
      expect(whole).toContain("nothing secret here");
      expectNoSecret(whole);
      for (let from = 1; from <= 12; from++)
        expectNoSecret(await text("fs_read", { path: "app.log", from_line: from }));
    });

    test("fs_grep with a pattern that spells part of a credential returns the line masked", async () => {
      for (const pattern of PATTERNS) {
        for (const ignore_case of [false, true]) {
          const out = await text("fs_grep", {
            pattern: pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
            path: "app.log",
            ignore_case,
          });
          expectNoSecret(out);
        }
      }
      const header = JSON.parse(await text("fs_grep", { pattern: "Authorization: B", path: "app.log" }));
      expect(header.rows).toEqual([["app.log", 2, "Authorization: ***"]]);
      const param = JSON.parse(await text("fs_grep", { pattern: "&token=", path: "app.log" }));
      expect(param.rows[0][2]).toBe("url=https://api.example.test/v1?page=2&token=***&x=1");
    });

    test("log_tail with a filter that spells part of a credential returns the line masked", async () => {
      for (const filter of PATTERNS) {
        const out = await text("log_tail", { path: join(root, "app.log"), filter });
        expectNoSecret(out);
      }
      const access = JSON.parse(await text("log_tail", { path: join(root, "app.log"), filter: "access_token: Z" }));
      expect(access.rows).toEqual([[-8, "access_token: ***"]]);
    });

    test("an argument that is the secret itself, sent where it is echoed, is masked too", async () => {
      const missing = await text("fs_read", { path: `nope?token=${SECRETS.query}` });
      expect(missing).toContain("fs.notfound");
      expectNoSecret(missing);
      const url = await text("http_head", { url: `https://alice:${SECRETS.userinfo}@127.0.0.1:9/` });
      expectNoSecret(url);
    });
  });
}
