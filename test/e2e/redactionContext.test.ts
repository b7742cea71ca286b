/**
 * End to end: what an agent is told of a file depends only on what it is
 * shown. A credential's value on the line after its name (YAML, folded
 * headers, pretty-printed JSON) was masked in a whole read but shown in the
 * clear by fs_grep, log_tail and a read that started after the name (or
 * inside a private key before it, or before a second key); a line
 * fs_grep cut at 4,096 characters showed the head of a URL's password or a
 * token; and a pattern guessing rta's data dir one character at a time told
 * a right guess from a wrong one by whether a line came back.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, whileRunning } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

/** Each secret is a word found nowhere else in the fixtures. */
const SECRETS = ["Zq71Kd4Hd", "Zq72Wn9Tm", "Zq73Ye2Vb", "Zq74Ps8Pw", "Zq75Gh3Kx", "Zq76Uo5Lc", "Zq77Jt1Ra"] as const;

const NEXT_LINE = [
  "headers:",
  "  authorization:",
  `    Bearer ${SECRETS[0]}`,
  "{",
  '  "access_token":',
  `    "${SECRETS[1]}",`,
  '  "user": "alice"',
  "}",
  "X-Api-Key",
  `: ${SECRETS[2]}`,
  "client_secret",
  "=",
  `${SECRETS[3]}`,
  "cookie:",
  "",
  "   ",
  `${SECRETS[4]}`,
  "nothing secret here",
  "",
].join("\n");

const JWT = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJacTc3In0.${SECRETS[6]}`;

/** No five characters in a row of any secret. */
function expectNoPieceOfASecret(text: string): void {
  for (const secret of SECRETS) {
    for (let i = 0; i + 5 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 5));
  }
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`what an agent is told of a file depends only on what it is shown, ${era} era`, () => {
    let s: Connected;
    let root = "";
    const data = tempDir();
    beforeAll(async () => {
      root = tempDir();
      writeFileSync(join(root, "next.log"), NEXT_LINE);
      // each credential masked only whole stands across the 4,096th character of its line
      const cutAt = (word: string, inside: number): string => `${"x".repeat(4096 - inside)}${word} tail`;
      writeFileSync(
        join(root, "long.log"),
        [
          cutAt(`https://alice:${SECRETS[5]}@h.test/`, 20),
          cutAt(`rta_${SECRETS[5]}${"Q".repeat(43 - SECRETS[5].length)}`, 30),
          cutAt(JWT, 48),
          "",
        ].join("\n"),
      );
      writeFileSync(join(root, "env.txt"), `RTA_DATA_DIR=${data}\nother=1\n`);
      s = await connect(era, ["--agent", "claude", "--root", root], { dataDir: data });
    });
    afterAll(async () => {
      await s.close();
    });

    const text = async (name: string, args: Record<string, unknown>) =>
      JSON.stringify(resultJson(await s.client.callTool({ name, arguments: args })));

    test("a value on a line after its credential's name is masked by every read, grep and tail", async () => {
      const whole = await text("fs_read", { path: "next.log" });
      expect(whole).toContain("nothing secret here");
      expectNoPieceOfASecret(whole);
      for (let from = 1; from <= 19; from++)
        expectNoPieceOfASecret(await text("fs_read", { path: "next.log", from_line: from }));
      for (let offset = 0; offset < NEXT_LINE.length; offset++) {
        for (const length of [5, 12, 4096])
          expectNoPieceOfASecret(await text("fs_read", { path: "next.log", offset, length }));
      }
      for (const pattern of ["Zq", ".", "^\\s*\\S", "Bearer", '"', "7"]) {
        const grep = await text("fs_grep", { pattern, path: "next.log" });
        expectNoPieceOfASecret(grep);
        const tail = await text("log_tail", { path: join(root, "next.log"), filter: pattern });
        expectNoPieceOfASecret(tail);
        for (const lines of [1, 2, 3, 5, 100]) {
          expectNoPieceOfASecret(await text("log_tail", { path: join(root, "next.log"), lines }));
        }
      }
      // the lines are still found, masked
      const bearer = JSON.parse(await text("fs_grep", { pattern: "\\*\\*\\*", path: "next.log" }));
      expect(bearer.rows.map((r: unknown[]) => r[1])).toEqual([3, 6, 10, 13, 17]);
      const tail = JSON.parse(await text("log_tail", { path: join(root, "next.log"), lines: 3 }));
      expect(tail.rows).toEqual([
        [-3, "   "],
        [-2, "***"],
        [-1, "nothing secret here"],
      ]);
    });

    test("what follows a read's start inside a private key is masked as a whole read masks it", async () => {
      // a read that starts inside a key is shown from a head masked whole: a name in that head still names the
      // value on a line after it, and a second key begun in that head is still a key
      const afterKey = [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        "-----END OPENSSH PRIVATE KEY-----",
        "client_secret",
        "=",
        SECRETS[3],
        "Authorization:",
        `Bearer ${SECRETS[0]}`,
        "-----BEGIN RSA PRIVATE KEY-----",
        `MIIEow${SECRETS[4]}AAAB`,
        "-----END RSA PRIVATE KEY-----",
        "done",
        "",
      ].join("\n");
      writeFileSync(join(root, "key.log"), afterKey);
      for (let offset = 0; offset < afterKey.length; offset++) {
        for (const length of [40, 60, 4096])
          expectNoPieceOfASecret(await text("fs_read", { path: "key.log", offset, length }));
      }
      for (let from = 1; from <= 12; from++)
        expectNoPieceOfASecret(await text("fs_read", { path: "key.log", from_line: from }));
    });

    test("a read that starts deep inside a private key of many lines shows none of its body", async () => {
      // an RSA 4096 key is some 50 lines: a range from its middle stands more than the lines kept for context
      // after its BEGIN, and its second half holds the primes
      const lines = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, "0")}${SECRETS[6]}${"A".repeat(53)}`);
      const key = ["head", "-----BEGIN RSA PRIVATE KEY-----", ...lines, "-----END RSA PRIVATE KEY-----", "after", ""];
      writeFileSync(join(root, "rsa.pem"), key.join("\n"));
      const size = key.join("\n").length;
      // every offset around where the lines kept for context start at the key's BEGIN, and some after
      const offsets = [
        ...Array.from({ length: 120 }, (_, i) => 1000 + i),
        ...Array.from({ length: 30 }, (_, i) => i * 97),
      ];
      for (const offset of offsets.filter((o) => o < size)) {
        for (const length of [100, 4096])
          expectNoPieceOfASecret(await text("fs_read", { path: "rsa.pem", offset, length }));
      }
    });

    test("a value after a name whose line ends in thousands of spaces is masked too", async () => {
      // fs_read looks 64 KiB back for a name, fs_grep and log_tail along the whole line
      const wide = `first\nx-auth-token:${" ".repeat(60_000)}\n${SECRETS[3]}\nlast\n`;
      writeFileSync(join(root, "wide.log"), wide);
      const outs = [
        await text("fs_grep", { pattern: ".", path: "wide.log" }),
        await text("log_tail", { path: join(root, "wide.log"), lines: 2 }),
        await text("fs_read", { path: "wide.log", from_line: 3 }),
        await text("fs_read", { path: "wide.log", offset: wide.indexOf(SECRETS[3]) }),
        await text("fs_read", { path: "wide.log", offset: wide.indexOf(SECRETS[3]) + 2, length: 4 }),
      ];
      for (const out of outs) expectNoPieceOfASecret(out);
      const rows = JSON.parse(outs[0] as string).rows.map((r: unknown[]) => String(r[2]));
      expect([rows[0], rows[2], rows[3]]).toEqual(["first", "***", "last"]);
      expect(rows[1]).toStartWith("x-auth-token:   ");
    });

    test("a line fs_grep cuts short shows no head of a credential masked only whole", async () => {
      const grep = JSON.parse(await text("fs_grep", { pattern: "^x", path: "long.log" }));
      expect(grep.total).toBe(3);
      for (const row of grep.rows) expect(row[2]).toEndWith("...");
      expectNoPieceOfASecret(JSON.stringify(grep));
      expect(JSON.stringify(grep)).not.toContain("alice");
    });

    test("whether fs_grep or log_tail finds a line never tells a right guess of rta's data dir from a wrong one", async () => {
      const grep = (pattern: string) => text("fs_grep", { pattern, path: "env.txt" });
      const tail = (filter: string) => text("log_tail", { path: join(root, "env.txt"), filter });
      const right = `DATA_DIR=${data.slice(0, 6)}`;
      const wrong = `DATA_DIR=${data.slice(0, 5)}#`;
      expect(await grep(right)).toBe(await grep(wrong));
      expect(await tail(right)).toBe(await tail(wrong));
      expect(await grep(`=${data}`)).toBe(await grep("=/nowhere/at/all"));
      expect(JSON.parse(await grep("DATA_DIR=<data dir>")).rows).toEqual([["env.txt", 1, "RTA_DATA_DIR=<data dir>"]]);
    });

    test("JSON that escapes its slashes hides neither a URL's password nor rta's data dir", async () => {
      const escaped = (p: string) => p.replaceAll("/", "\\/");
      writeFileSync(
        join(root, "app.json"),
        `{"db":"${escaped(`postgres://app:${SECRETS[5]}@db.test/x`)}","store":"${escaped(data)}\\/kv.age"}\n`,
      );
      for (const out of [
        await text("fs_read", { path: "app.json" }),
        await text("fs_grep", { pattern: "db", path: "app.json" }),
        await text("log_tail", { path: join(root, "app.json") }),
      ]) {
        expect(out).toContain("***@db.test");
        expect(out).toContain("<data dir>");
        expectNoPieceOfASecret(out);
        expect(out).not.toContain(escaped(data.slice(1)));
      }
    });

    test("a header set in code, its key quoted either way or indexed, is masked", async () => {
      writeFileSync(
        join(root, "client.py"),
        [
          `headers = {'Authorization': 'Bearer ${SECRETS[0]}'}`,
          `headers["X-Api-Key"] = "${SECRETS[1]}"`,
          `req.headers['authorization'] = 'Basic ${SECRETS[2]}'`,
          "",
        ].join("\n"),
      );
      for (const out of [
        await text("fs_read", { path: "client.py" }),
        await text("fs_grep", { pattern: "headers", path: "client.py" }),
        await text("log_tail", { path: join(root, "client.py") }),
      ]) {
        expect(out).toContain("'Authorization': '***'");
        expectNoPieceOfASecret(out);
      }
    });

    test("a copy of an age identity, the key rta's store opens with, is masked", async () => {
      const key = `AGE-SECRET-KEY-1${SECRETS[6].toUpperCase()}QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGP`;
      writeFileSync(join(root, "backup.txt"), `# public key: age1qyqszqgp\n${key}\n`);
      for (const out of [
        await text("fs_read", { path: "backup.txt" }),
        await text("fs_grep", { pattern: ".", path: "backup.txt" }),
        await text("log_tail", { path: join(root, "backup.txt") }),
      ]) {
        expect(out).toContain("***");
        expect(out).not.toContain(SECRETS[6].toUpperCase().slice(0, 5));
        expect(out).not.toContain("QYQSZQGP");
      }
    });

    test("a PEM private key's body is masked by every read, grep and tail, whole or a line at a time", async () => {
      const body = [
        `b3BlbnNzaC1rZXktdjEAAAAA${SECRETS[0]}`,
        `QUJDREVGR0hJSktMTU5PUFFS${SECRETS[1]}`,
        `${SECRETS[2]}U1RVVldYWVo=`,
      ];
      const pem = ["-----BEGIN OPENSSH PRIVATE KEY-----", ...body, "-----END OPENSSH PRIVATE KEY-----"].join("\n");
      const file = `# deploy key\n${"filler line\n".repeat(400)}${pem}\nafter\n`;
      writeFileSync(join(root, "id_deploy"), file);
      const outs = [
        await text("fs_read", { path: "id_deploy" }),
        await text("fs_grep", { pattern: ".", path: "id_deploy", max_matches: 1000 }),
        await text("fs_grep", { pattern: "Zq7", path: "id_deploy" }),
        await text("fs_grep", { pattern: "[A-Za-z0-9+/=]{30}", path: "id_deploy" }),
      ];
      for (let lines = 1; lines <= 6; lines++)
        outs.push(await text("log_tail", { path: join(root, "id_deploy"), lines }));
      for (let from = 400; from <= 406; from++)
        outs.push(await text("fs_read", { path: "id_deploy", from_line: from }));
      for (let offset = file.indexOf("-----BEGIN"); offset < file.length; offset += 7) {
        outs.push(await text("fs_read", { path: "id_deploy", offset, length: 20 }));
      }
      for (const out of outs) expectNoPieceOfASecret(out);
      expect(outs[0]).toContain("-----BEGIN OPENSSH PRIVATE KEY-----\\n***\\n-----END OPENSSH PRIVATE KEY-----");
    });

    test("proc_list masks the password of a user:password flag (curl -u, --user=, --proxy-user)", async () => {
      const flags = ["-u", `alice:${SECRETS[0]}`, `--user=bob:${SECRETS[1]}`, "--proxy-user", `carol:${SECRETS[2]}`];
      await whileRunning(flags, async (pid) => {
        const out = JSON.parse(await text("proc_list", { limit: 1000 }));
        const row = (out.rows as unknown[][]).find((r) => r[0] === pid);
        expect(row?.[4]).toBe("bash -c sleep 60; true holder -u alice:*** --user=bob:*** --proxy-user carol:***");
        expectNoPieceOfASecret(JSON.stringify(out));
      });
    });

    test("a skip ahead on the file's own text never tells what a mask or a label hides", async () => {
      // a word the label or the mask writes, or-ed with a guess at what it hides: the guess used to decide
      const pairs: [string, string][] = [
        ["\\*\\*\\*|Bearer Zq71", "\\*\\*\\*|Bearer Zq70"],
        ["[*]{3}|Bearer Zq71", "[*]{3}|Bearer Zq70"],
        ["[*]{3}|Bearer Zq7[1]", "[*]{3}|Bearer Zq7[0]"],
      ];
      for (const [right, wrong] of pairs) {
        const grep = (pattern: string) => text("fs_grep", { pattern, path: "next.log" });
        expect(await grep(right)).toBe(await grep(wrong));
        expect(JSON.parse(await grep(right)).rows.length).toBe(5);
      }
      const dir = (pattern: string) => text("fs_grep", { pattern, path: "env.txt" });
      expect(await dir(`dir|=${data.slice(0, 6)}`)).toBe(await dir(`dir|=${data.slice(0, 5)}#`));
      expect(await dir(`(?i)DATA DIR|=${data.slice(0, 6)}`)).toBe(await dir(`(?i)DATA DIR|=${data.slice(0, 5)}#`));
    });
  });
}
