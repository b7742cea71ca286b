/**
 * jwt.decode: the header and claims of a JSON Web Token, with its times in
 * words. It verifies nothing and needs no key. A malformed token is refused
 * as `jwt.malformed`, and no message repeats the token or any part of it.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { relativeWords } from "../../core/words.ts";

/** Registered claims that hold a NumericDate (RFC 7519 section 4.1). */
const TIME_CLAIMS = { exp: "expires", nbf: "valid from", iat: "issued" } as const;

export const jwtDecode = define({
  name: "jwt.decode",
  summary: "Show the header and claims of a JSON Web Token, with its times in words",
  agentText:
    "Decodes without verifying: the signature is not checked and no key is needed, so treat the claims as what the token says, not as proof.",
  searchWords: ["bearer token", "id token", "access token", "claims", "jws"],
  safety: "read",
  inputs: {
    token: {
      type: "string",
      description: "the token, three base64url parts joined by dots",
      required: true,
      fromPipe: true,
      positional: true,
    },
  },
  result: { shape: "object" },
  examples: [
    {
      command: "rta jwt decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6NDEwMjQ0NDgwMH0.c2ln",
      note: "decode a token given as an argument",
    },
    { command: 'echo "$TOKEN" | rta jwt decode --json', note: "decode a token read from a pipe" },
  ],
  async run(args, ctx) {
    const token = String(args.token).trim();
    const parts = token.split(".");
    if (parts.length === 5) {
      throw malformed("it has 5 parts, so it is encrypted (JWE), and its claims cannot be read without the key");
    }
    if (parts.length !== 3) {
      throw malformed(`expected 3 parts separated by dots, found ${parts.length}`);
    }
    const header = decodePart(parts[0] as string, "header");
    const claims = decodePart(parts[1] as string, "claims");
    const now = ctx.clock.now() / 1000;
    const times: Record<string, string> = {};
    for (const [claim, label] of Object.entries(TIME_CLAIMS)) {
      const at = claims[claim];
      if (typeof at === "number" && Number.isFinite(at)) {
        times[claim] = timeWords(label, at, now);
      }
    }
    const exp = claims.exp;
    return object({
      header,
      claims,
      times,
      expired: typeof exp === "number" ? exp <= now : null,
      signature: (parts[2] as string).length > 0 ? "present, not verified" : "none",
    });
  },
});

function timeWords(label: string, at: number, now: number): string {
  const when = relativeWords(at, now);
  const iso = new Date(at * 1000).toISOString();
  if (label === "expires" && at <= now) return `expired ${when} (${iso})`;
  return `${label} ${when} (${iso})`;
}

function decodePart(part: string, which: "header" | "claims"): Record<string, unknown> {
  if (part === "" || !/^[A-Za-z0-9_-]+={0,2}$/.test(part)) {
    throw malformed(`the ${which} is not base64url`);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw malformed(`the ${which} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw malformed(`the ${which} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function malformed(why: string): RtaError {
  return new RtaError(
    "jwt.malformed",
    `malformed token: ${why}`,
    "pass the whole token, header.claims.signature, without the `Bearer ` prefix or quotes",
  );
}
