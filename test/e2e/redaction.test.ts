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
import { tempDir, whileRunning } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

/** Each secret is a word found nowhere else in the fixture, so its tail showing anywhere is a leak. */
const SECRETS = {
  bearer: "Zq81Kx7Pw3Vb9Tm2Hd",
  basic: "YWxpY2U6aHVudGVyMg",
  query: "Zq82Rn4Gy8Lc1Fs6Jw",
  accessKey: "Zq83Ut5Mh2Xe7Qa9Bk",
  cookie: "Zq84Dv3Ni6Wo1Pz8Cy",
  cookie2: "Zq85Hs9Ej4Tb2Ku7Ro",
  apiKey: "Zq86Fx1Lq8Gw5Vn3Mi",
  password: "Zq87Cb6Yt2Ra9Ud4Pe",
  userinfo: "Zq88Jk3Os7Ix1Hv5Wl",
  json: "Zq89Ga4Nf8Ep2Sy6Tu",
  digest: "Zq90Bm7Qc3Kd9Lj1Xr",
  refresh: "Zq91Pw2Vh6Mo4Zt8Fa",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJacTkyIn0.Zq92Wx5Rt8Yu1Io4Pa",
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
  `issued ${SECRETS.jwt} to the runner`,
  `nothing secret here`,
  ``,
].join("\n");

/** Patterns an agent might send: a header's start, a parameter, a prefix of a value, a whole value, any case. */
const PATTERNS = [
  "Authorization: B",
  "Authorization: Bearer Zq81K",
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
  "eyJhbGciOiJIUzI1NiJ9.eyJ",
  "Zq92W",
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

/** No five characters in a row of any secret: for a text where the agent sent nothing of one. */
function expectNoPieceOfASecret(text: string): void {
  for (const secret of Object.values(SECRETS)) {
    for (let i = 0; i + 5 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 5));
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
      for (let from = 1; from <= 13; from++)
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
      // a line is matched as it is shown: a pattern that runs into a credential finds nothing there
      expect(JSON.parse(await text("fs_grep", { pattern: "Authorization: B", path: "app.log" })).rows).toEqual([]);
      const header = JSON.parse(await text("fs_grep", { pattern: "^Authorization", path: "app.log" }));
      expect(header.rows).toEqual([["app.log", 2, "Authorization: ***"]]);
      const param = JSON.parse(await text("fs_grep", { pattern: "&token=", path: "app.log" }));
      expect(param.rows[0][2]).toBe("url=https://api.example.test/v1?page=2&token=***&x=1");
    });

    test("log_tail with a filter that spells part of a credential returns the line masked", async () => {
      for (const filter of PATTERNS) {
        const out = await text("log_tail", { path: join(root, "app.log"), filter });
        expectNoSecret(out);
      }
      const access = JSON.parse(await text("log_tail", { path: join(root, "app.log"), filter: "access_token:" }));
      expect(access.rows).toEqual([[-9, "access_token: ***"]]);
    });

    test("whether fs_grep or log_tail picks a line never depends on a secret: a guessed head of one finds nothing", async () => {
      const guesses: [string, string][] = [
        ["Authorization: Bearer Z", "Authorization: Bearer Y"],
        ["token=Zq82", "token=Zq80"],
        ["access_token: Zq8", "access_token: Zq7"],
        ["alice:Z", "alice:Y"],
        ["Zq81Kx7P", "Zq81Kx7Q"],
      ];
      for (const [right, wrong] of guesses) {
        const grep = (pattern: string) => text("fs_grep", { pattern, path: "app.log" });
        expect(await grep(right)).toBe(await grep(wrong));
        const tail = (filter: string) => text("log_tail", { path: join(root, "app.log"), filter });
        expect(await tail(right)).toBe(await tail(wrong));
      }
    });

    test("fs_read of a byte range that starts or ends inside a credential shows none of it", async () => {
      if (era === "modern") return; // one era is enough for a sweep of every offset
      for (let offset = 0; offset < FIXTURE.length; offset++) {
        for (const length of [6, 23]) {
          const out = await text("fs_read", { path: "app.log", offset, length });
          expectNoPieceOfASecret(out);
        }
      }
    });

    test("a byte range deep inside a long credential (a 20 KB bearer token) shows none of it", async () => {
      if (era === "modern") return;
      let seed = 7;
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
      const token = Array.from({ length: 20_000 }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return alphabet[seed % alphabet.length];
      }).join("");
      writeFileSync(join(root, "long.log"), `first line\nAuthorization: Bearer ${token}\nlast line\n`);
      for (const offset of [40, 5_000, 10_000, 19_990, 20_020]) {
        const out = JSON.parse(await text("fs_read", { path: "long.log", offset, length: 30 })).text as string;
        for (let i = 0; i + 8 <= token.length; i += 4) expect(out).not.toContain(token.slice(i, i + 8));
      }
    });

    test("a text cut for the model never ends inside a credential", async () => {
      if (era === "modern") return;
      const line = `clone https://alice:${SECRETS.userinfo}@git.example.test/r\n`;
      // masked, a line is a third shorter: 200 KiB of them is still past what a model is sent
      writeFileSync(join(root, "big.log"), line.repeat(Math.ceil((200 * 1024) / line.length)));
      for (let offset = 0; offset < line.length; offset++) {
        const out = await text("fs_read", { path: "big.log", offset });
        expect(out).toContain("more bytes left out");
        expectNoPieceOfASecret(out);
      }
    });

    test("a long argument echoed back is redacted in time that grows with its length, not its square", async () => {
      // `a.a.a...:` once made the URL pattern scan to the end from every dot: minutes for this, hours for 4 MiB
      const long = `${"a.".repeat(200_000)}:`;
      const badargs = JSON.parse(await text("proc_list", { [long]: 1 }));
      expect(badargs.code).toBe("core.mcp.badargs");
      // a pattern this long is refused before it is compiled, and its refusal does not echo it
      const grep = JSON.parse(await text("fs_grep", { pattern: long, path: "app.log" }));
      expect(grep.code).toBe("core.input.invalid");
      expect(await text("fs_read", { path: "app.log", from_line: 13 })).toContain("nothing secret here");
    });

    test("an argument of dashes and token heads (`eyJ-eyJ-…`) is redacted in time that grows with its length", async () => {
      // the token pattern once started again at every `-eyJ` and scanned to the end: 8 s for 256 KB, minutes for this
      const long = "eyJ-".repeat(512 * 1024);
      const stat = JSON.parse(await text("fs_stat", { path: long }));
      expect(stat.code).toBe("core.path.invalid");
      expect(await text("fs_read", { path: "app.log", from_line: 13 })).toContain("nothing secret here");
    });

    test("proc_list masks a credential on a command line: a flag, a header, a URL's userinfo", async () => {
      const flags = [
        "--password",
        SECRETS.password,
        `--token=${SECRETS.query}`,
        `https://alice:${SECRETS.userinfo}@h.test/`,
      ];
      await whileRunning(flags, async (pid) => {
        const out = JSON.parse(await text("proc_list", { limit: 1000 }));
        const row = (out.rows as unknown[][]).find((r) => r[0] === pid);
        expect(row?.[4]).toBe("bash -c sleep 60; true holder --password *** --token=*** https://***@h.test/");
        expectNoPieceOfASecret(JSON.stringify(out));
      });
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
