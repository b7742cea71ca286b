/**
 * The redaction corpus: what an agent is told never names rta's own places
 * or repeats a secret, and what the agent sent is left as it was.
 */
import { describe, expect, test } from "bun:test";
import { mayBeWrittenByRedaction, Redactor } from "../../src/core/redact.ts";
import { cutAtWord, cutsACredential, LinesBefore, maskSecrets, maskSecretsAfter } from "../../src/core/secrets.ts";

const DATA = "/home/u/.local/share/rta";
const CONFIG = "/home/u/.config/rta";
const IDENTITY = "/home/u/keys/rta-identity.txt";
const r = new Redactor({ data: [DATA, "/real/share/rta"], config: [CONFIG], identity: [IDENTITY] });
const slashData = new Redactor({ data: ["/data"], config: ["/etc/rta"] });

type Case = [input: string, expected: string, kept?: string[]];

const cases: Case[] = [
  // OS errors naming paths inside the data and config dirs
  [
    `ENOENT: no such file or directory, open '${DATA}/kv.age'`,
    "ENOENT: no such file or directory, open '<data dir>/kv.age'",
  ],
  [`EACCES: permission denied, open '${DATA}/gate.db'`, "EACCES: permission denied, open '<data dir>/gate.db'"],
  [
    `ELOOP: too many symbolic links encountered, stat '${CONFIG}/config.toml'`,
    "ELOOP: too many symbolic links encountered, stat '<config dir>/config.toml'",
  ],
  [`reading ${DATA}/kv.age: permission denied`, "reading <data dir>/kv.age: permission denied"],
  [`${DATA}`, "<data dir>"],
  [`${DATA}/`, "<data dir>/"],
  [`(${DATA})`, "(<data dir>)"],
  [`"${CONFIG}"`, '"<config dir>"'],
  [
    `cannot write ${CONFIG}/policy.toml, ${DATA}/agent-log.jsonl`,
    "cannot write <config dir>/policy.toml, <data dir>/agent-log.jsonl",
  ],
  [`the real path /real/share/rta/notes/x.json`, "the real path <data dir>/notes/x.json"],
  [`identity at ${IDENTITY} is unreadable`, "identity at <identity file> is unreadable"],
  [`EACCES: permission denied, open '${IDENTITY}'`, "EACCES: permission denied, open '<identity file>'"],
  [`line1\n${DATA}/a\nline3`, "line1\n<data dir>/a\nline3"],
  [`${DATA}\t${CONFIG}`, "<data dir>\t<config dir>"],
  // only where the place stands as a path of its own
  [`${DATA}-backup/x`, `${DATA}-backup/x`],
  [`${DATA}.old`, `${DATA}.old`],
  [`/srv${DATA}/x`, `/srv${DATA}/x`],
  [`${CONFIG}s/x`, `${CONFIG}s/x`],
  // URLs with userinfo and token parameters
  ["fetching https://alice:s3cret@example.test/repo.git", "fetching https://***@example.test/repo.git"],
  ["git clone https://ghp_abc123@github.example/x", "git clone https://***@github.example/x"],
  ["GET https://api.example.test/v1?token=abc123&page=2", "GET https://api.example.test/v1?token=***&page=2"],
  ["https://x.test/?access_token=tok&key=k1&sig=s1#frag", "https://x.test/?access_token=***&key=***&sig=***#frag"],
  ["https://x.test/cb?page=1&password=hunter2", "https://x.test/cb?page=1&password=***"],
  [
    "https://s3.example.test/o?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA",
    "https://s3.example.test/o?X-Amz-Signature=***&X-Amz-Credential=***",
  ],
  ["postgres://admin:pw@db.test:5432/app", "postgres://***@db.test:5432/app"],
  ["https://example.test/path?tokenized=yes", "https://example.test/path?tokenized=yes"],
  // header dumps
  ["Authorization: Bearer eyJhbGciOi.abc.def", "Authorization: ***"],
  ["authorization: Basic YWxpY2U6czNjcmV0", "authorization: ***"],
  ["Cookie: session=abc; theme=dark", "Cookie: ***"],
  ["Set-Cookie: id=xyz; HttpOnly", "Set-Cookie: ***"],
  ["X-Api-Key: k-123\nAccept: */*", "X-Api-Key: ***\nAccept: */*"],
  ["Proxy-Authorization: Digest abc", "Proxy-Authorization: ***"],
  ['{"Authorization":"Bearer t0k","Accept":"json"}', '{"Authorization":"***","Accept":"json"}'],
  [
    "Host: example.test\nAuthorization: token abc\nUser-Agent: rta",
    "Host: example.test\nAuthorization: ***\nUser-Agent: rta",
  ],
  ["Accept: text/html", "Accept: text/html"],
  // agent-sent paths are kept, even when they name rta's places
  [`"${DATA}/kv.age" is withheld from agents`, `"${DATA}/kv.age" is withheld from agents`, [`${DATA}/kv.age`]],
  [
    `"../../.local/share/rta/kv.age" is outside the roots`,
    `"../../.local/share/rta/kv.age" is outside the roots`,
    ["../../.local/share/rta/kv.age"],
  ],
  [
    `"${CONFIG}" is withheld; the store ${DATA}/gate.db is not named`,
    `"${CONFIG}" is withheld; the store <data dir>/gate.db is not named`,
    [CONFIG],
  ],
  [`"notes/${DATA}" does not exist`, `"notes/${DATA}" does not exist`, [`notes/${DATA}`]],
  ["", ""],
  // a short string the agent sent does not switch redaction off around it
  [`${DATA}/kv.age and Authorization: Bearer abc123`, "<data dir>/kv.age and Authorization: ***", ["a", "/", ":", "e"]],
  [`https://admin:hunter2@h.test/?token=s3cret`, "https://***@h.test/?token=***", ["h", "t"]],
  // places at the end of a sentence, after a scheme, and secrets in other spellings
  [`it is kept in ${DATA}.`, "it is kept in <data dir>."],
  [`file://${DATA}/gate.db`, "file://<data dir>/gate.db"],
  ["the token rta_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde was sent", "the token *** was sent"],
  ['{"access_token": "abc123", "user": "u"}', '{"access_token": "***", "user": "u"}'],
  // names in code and files are left alone: an agent that edits a file must not write masks back into it
  [
    'key = load_key()\nsession = new_session()\n{"auth": "x", "sig": 1}',
    'key = load_key()\nsession = new_session()\n{"auth": "x", "sig": 1}',
  ],
  ["rta_release_notes_for_version_2.md", "rta_release_notes_for_version_2.md"],
  ["https://x.test/cb#access_token=abc123", "https://x.test/cb#access_token=***"],
  // an agent's words that spell part of a credential (a header, a parameter, a head of the value) shield none of it
  ["Authorization: Bearer abc123", "Authorization: ***", ["Authorization: B"]],
  ["GET /x?a=1&token=abc123&b=2", "GET /x?a=1&token=***&b=2", ["&token="]],
  ["access_token: abc123", "access_token: ***", ["access_token: a"]],
  ["Authorization: Bearer abc123", "Authorization: ***", ["Bearer abc"]],
  ["Authorization: Bearer abc123", "Authorization: ***", ["abc123"]],
  ["https://admin:hunter2@h.test/x", "https://***@h.test/x", ["https://admin:"]],
  ["COOKIE:sid=abc123", "COOKIE:***", ["cookie:S", "COOKIE:sid"]],
  // a credential given to a command as a flag, as a process listing shows it
  ["mysql --user=app --password=hunter2 db", "mysql --user=app --password=*** db"],
  ["curl --token abc123 -X GET", "curl --token *** -X GET"],
  ["tool --api-key=k-123 --verbose", "tool --api-key=*** --verbose"],
  ["rta mcp token new --agent x", "rta mcp token new --agent x"],
  // a user and password given as one flag, as curl takes them
  ["curl -u alice:hunter2 https://h.test/", "curl -u alice:*** https://h.test/"],
  ["curl --user=alice:hunter2 -x p --proxy-user bob:s3cret", "curl --user=alice:*** -x p --proxy-user bob:***"],
  ["tar -u file.tar x", "tar -u file.tar x"],
  ["--token --json", "--token --json"],
  // a JSON Web Token standing alone
  ["TOKEN eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.YWxpY2U6czNjcmV0 was issued", "TOKEN *** was issued"],
  ["eyJ alone and a.b.c are no token", "eyJ alone and a.b.c are no token"],
  // one after a dash, one in the middle of a dotted run, one whose signature is empty, one whose header is too short
  ["jwt-eyJhbGciOi.eyJzdWIi.c2ln, a.b.eyJhbGc.eyJzdWI.sig.tail", "jwt-***, a.b.***.tail"],
  ["eyJhbGc.eyJzdWI. and eyJh.eyJzdWI.sig", "*** and eyJh.eyJzdWI.sig"],
  // an age identity, such as the file RTA_KV_IDENTITY names holds, copied anywhere
  ["key AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS2DSXLF here", "key *** here"],
  ["AGE-PLUGIN-YUBIKEY-1QYQSZQGPQYQSZQGP and age1qyqszqgpqyqs public", "*** and age1qyqszqgpqyqs public"],
  // a PEM private key's body, its armour kept; one with no END is masked to the end
  [
    "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc123\nxyz789==\n-----END RSA PRIVATE KEY-----\nb",
    "a\n-----BEGIN RSA PRIVATE KEY-----\n***\n-----END RSA PRIVATE KEY-----\nb",
  ],
  ["-----BEGIN PRIVATE KEY-----\nMIIEabc123\nxyz", "-----BEGIN PRIVATE KEY-----\n***"],
  [
    "-----BEGIN CERTIFICATE-----\nMIIEpublic\n-----END CERTIFICATE-----",
    "-----BEGIN CERTIFICATE-----\nMIIEpublic\n-----END CERTIFICATE-----",
  ],
  // a header set in code: the key quoted either way, or indexed
  ["headers = {'Authorization': 'Bearer abc123'}", "headers = {'Authorization': '***'}"],
  ['headers["Authorization"] = "Bearer abc123"', 'headers["Authorization"] = "***"'],
  ["req.headers['x-api-key'] = 'abc123';", "req.headers['x-api-key'] = '***';"],
  // JSON that escapes its slashes: a URL's userinfo and rta's places, spelled so
  ['{"url":"https:\\/\\/admin:hunter2@db.test\\/x"}', '{"url":"https:\\/\\/***@db.test\\/x"}'],
  [`{"dir":"${DATA.replaceAll("/", "\\/")}\\/kv.age"}`, '{"dir":"<data dir>\\/kv.age"}'],
  // a path the agent sent is kept, with any secret in it masked
  [`${DATA}/x?token=abc123 is withheld`, `${DATA}/x?token=*** is withheld`, [`${DATA}/x?token=abc123`]],
  // a bare value runs to the end of its line; a quoted one to its closing quote
  ["Cookie: a=abc123, b=hunter2", "Cookie: ***"],
  ['Authorization: Digest username="u", response="deadbeef"', "Authorization: ***"],
  ['{"Authorization":"Bearer a\\"abc123","Accept":"json"}', '{"Authorization":"***","Accept":"json"}'],
];

describe("the redaction corpus", () => {
  test(`holds at least 40 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });
  for (const [input, expected, kept] of cases) {
    test(JSON.stringify(input.length > 70 ? `${input.slice(0, 70)}...` : input), () => {
      const out = r.text(input, kept);
      expect(out).toBe(expected);
      if (!kept?.length && expected !== input) {
        expect(out).not.toContain(DATA);
        expect(out).not.toContain(CONFIG);
        expect(out).not.toContain(IDENTITY);
      }
      for (const secret of ["s3cret", "abc123", "hunter2", "eyJhbGciOi", "YWxpY2U6", "deadbeef", "k-123", "t0k"]) {
        expect(out).not.toContain(secret);
      }
    });
  }
});

describe("a place whose path holds a quote", () => {
  test("is renamed where a hint's command quotes it for the shell, too", () => {
    const quoted = new Redactor({
      data: ["/home/o'brien/.rta"],
      config: ["/etc/rta"],
      identity: ["/home/o'brien/id.txt"],
    });
    expect(quoted.text("narrow it to its owner: chmod 600 '/home/o'\\''brien/id.txt'")).toBe(
      "narrow it to its owner: chmod 600 '<identity file>'",
    );
    expect(quoted.text("rm '/home/o'\\''brien/.rta/kv.age.lock'")).toBe("rm '<data dir>/kv.age.lock'");
    expect(quoted.text("the file /home/o'brien/id.txt")).toBe("the file <identity file>");
  });
});

describe("a data dir of /data", () => {
  test("rewrites /data and /data/x, and neither /database nor /srv/data/x", () => {
    expect(slashData.text("open /data/gate.db")).toBe("open <data dir>/gate.db");
    expect(slashData.text("open /data")).toBe("open <data dir>");
    expect(slashData.text("open /database/x")).toBe("open /database/x");
    expect(slashData.text("open /srv/data/x")).toBe("open /srv/data/x");
    expect(slashData.text("/data-old and /data_1 and /data.bak")).toBe("/data-old and /data_1 and /data.bak");
    expect(slashData.text("/etc/rta/config.toml /etc/rtab")).toBe("<config dir>/config.toml /etc/rtab");
  });
});

describe("results", () => {
  test("every string in a result is redacted, credential-named keys are masked whole, numbers are left", () => {
    const value = {
      type: "object",
      value: {
        store: `${DATA}/kv.age`,
        headers: { authorization: "Bearer abc", "x-api-key": "k", accept: "json" },
        rows: [[1, `${CONFIG}/config.toml`]],
        size: 42,
      },
    };
    expect(r.value(value)).toEqual({
      type: "object",
      value: {
        store: "<data dir>/kv.age",
        headers: { authorization: "***", "x-api-key": "***", accept: "json" },
        rows: [[1, "<config dir>/config.toml"]],
        size: 42,
      },
    });
  });

  test("a key is redacted as a value is, and a key named __proto__ stays a key", () => {
    const value = JSON.parse(`{"${DATA}/kv.age": 1, "https://u:hunter2@h.test/": 2, "__proto__": {"x": "${CONFIG}"}}`);
    const out = r.value(value);
    expect(JSON.stringify(out)).toBe(
      '{"<data dir>/kv.age":1,"https://***@h.test/":2,"__proto__":{"x":"<config dir>"}}',
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  test("the record's masking takes secrets out and keeps places", () => {
    expect(maskSecrets(`reading ${DATA}/kv.age via https://u:p@h.test/?token=t`)).toBe(
      `reading ${DATA}/kv.age via https://***@h.test/?token=***`,
    );
  });
});

describe("a window cut out of a longer text", () => {
  test("is said to cut a credential when it starts or ends inside one", () => {
    expect(cutsACredential("Author", "ization: Bearer abc123", "")).toBe(true);
    expect(cutsACredential("Authorization: Bearer ", "abc123", "")).toBe(true);
    expect(cutsACredential("x?a=1&token=", "abc123&b=2", "")).toBe(true);
    expect(cutsACredential("clone ", "https://admin:hunt", "er2@h.test/x")).toBe(true);
    expect(cutsACredential("", "Cookie: a=1", "; b=hunter2")).toBe(true);
  });

  test("is not, when its edges stand outside every credential", () => {
    expect(cutsACredential("", "whole text", "")).toBe(false);
    expect(cutsACredential("plain ", "words", " here")).toBe(false);
    expect(cutsACredential("", "Authorization: Bearer abc123", "")).toBe(false);
    expect(cutsACredential("see ", "https://h.test/x?page=2", " next")).toBe(false);
  });
});

describe("time", () => {
  test("a text of dots and letters is masked in one pass, not one per dot", () => {
    // a bounded scheme: before, this took minutes; unbounded, its time grew with the square of the length
    const long = `${"a.".repeat(500_000)}:`;
    expect(maskSecrets(long)).toBe(long);
    expect(r.text(long, [long])).toBe(long);
  });
});

describe("a remote server's roots", () => {
  test("are named <root 1>, <root 2> in the order given, each spelling alike, only as paths of their own", () => {
    const remote = new Redactor({
      data: [DATA],
      config: [CONFIG],
      roots: [
        ["/srv/app", "/real/app"],
        ["/srv/app/sub", "/srv/./app/sub"],
      ],
    });
    expect(remote.text("serve --root /srv/app --root /srv/./app/sub/")).toBe("serve --root <root 1> --root <root 2>/");
    expect(remote.text("/real/app/x and /srv/app/sub/y")).toBe("<root 1>/x and <root 2>/y");
    expect(remote.text("/srv/application /srv/app-old /x/srv/app")).toBe("/srv/application /srv/app-old /x/srv/app");
  });
});

describe("a part of a longer text, masked as it reads there", () => {
  test("a value on a line after its credential's name, blank lines or a lone `:` between, is masked", () => {
    expect(maskSecretsAfter("headers:\n  authorization:\n", "    Bearer abc123")).toBe("    ***");
    expect(maskSecretsAfter('{\n  "access_token":\n', '    "abc123",')).toBe('    "***",');
    expect(maskSecretsAfter("x\nX-Api-Key\n", ": abc123")).toBe(": ***");
    expect(maskSecretsAfter("client_secret\n=\n", "abc123")).toBe("***");
    expect(maskSecretsAfter("cookie:\n\n", "   ")).toBe("   ");
    // a name the value does not belong to, or one whose value stood on its own line, masks nothing after it
    expect(maskSecretsAfter("authorization: Bearer abc\n", "next line")).toBe("next line");
    expect(maskSecretsAfter("reauthorization_note:\n", "plain")).toBe("plain");
    expect(maskSecretsAfter("keys:\n", "plain")).toBe("plain");
  });

  test("a name that begins a path's part masks its value on the next line as a whole read does", () => {
    const before = "logs/Authorization:\n";
    expect(maskSecrets(`${before}  Bearer abc123`)).toBe("logs/Authorization:\n  ***");
    expect(maskSecretsAfter(before, "  Bearer abc123")).toBe("  ***");
    expect(maskSecrets("logs/--password=abc123 and logs/-u bob:abc123")).toBe(
      "logs/--password=*** and logs/-u bob:***",
    );
  });

  test("LinesBefore keeps the ends of the last two lines that are not blank", () => {
    const before = new LinesBefore();
    for (const line of ["first", `${"x".repeat(5000)} authorization`, "", "  ", ":"]) before.add(line);
    expect(maskSecretsAfter(before.text(), "Bearer abc123")).toBe("***");
    expect(before.text()).not.toContain("first");
  });

  test("a line cut short loses the word at its cut only where a credential masked whole may begin", () => {
    expect(cutAtWord("clone https://alice:hunt")).toBe("clone ");
    expect(cutAtWord(`${"x".repeat(40)}https://alice:hunt`)).toBe("x".repeat(13));
    expect(cutAtWord("token rta_abcdefgh")).toBe("token ");
    expect(cutAtWord('"u":"https:\\/\\/alice:hunt')).toBe('"u":"');
    expect(cutAtWord('"t":"eyJhbGciOi.eyJzd')).toBe('"t":"');
    expect(cutAtWord("plain words and a long yyyyyyy")).toBe("plain words and a long yyyyyyy");
  });

  test("a word redaction may write is told from one it cannot", () => {
    const may = ["***", "*", "a*", "*b", "data", "a", "<data", "dir>", "ROOT 2", "t <config dir> x", "Identity"];
    // a root past the 99th is still a label: `<root 150>`
    for (const w of [...may, "t 150", "150", "oot 1"]) expect(mayBeWrittenByRedaction(w)).toBe(true);
    for (const w of ["Bearer Zq8", "ERROR", "TODO", "needle", "x", "bz", "root 1x", "ro 1", "return null;"])
      expect(mayBeWrittenByRedaction(w)).toBe(false);
  });
});

describe("a credential's key holding a list", () => {
  test("masks every text in the list, as it masks one text under the key", () => {
    const value = {
      type: "object",
      value: { "set-cookie": ["sid=abc123", "lang=en"], secret: ["Zq9hunter2"], n: [1] },
    };
    expect(r.value(value)).toEqual({
      type: "object",
      value: { "set-cookie": ["***", "***"], secret: ["***"], n: [1] },
    });
  });
});
