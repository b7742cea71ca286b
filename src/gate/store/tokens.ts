/**
 * The tokens table: the bearer tokens an HTTP server takes, each naming its
 * agent. Only a token's sha256 is kept, never the token, so a copy of gate.db
 * lets no one in. It refuses nothing a person typed: gate/operator checks
 * that before a token reaches here.
 */
import type { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import type { StoreWriteLock } from "../storeLock.ts";
import { type Chosen, endSelected, newRowId } from "./db.ts";

/** A bearer token for MCP over HTTP: only its sha256 is kept. */
export interface Token {
  id: string;
  agent: string;
  hash: string;
  issued_at: number;
  expires_at: number | null;
  issued_by: string;
  revoked_at: number | null;
}

/** The hex sha256 of a token, as it is stored and looked up; refuses nothing. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export class TokenStore {
  constructor(
    private readonly db: Database,
    private readonly writeLock: StoreWriteLock,
  ) {}

  /** Stores a token's hash, never the token; returns the row. */
  add(agent: string, hash: string, now: number, expiresAt: number | null, issuedBy: string): Token {
    const id = newRowId("t");
    this.db
      .query(
        "INSERT INTO tokens (id, agent, hash, issued_at, expires_at, issued_by) VALUES ($id, $agent, $hash, $now, $expires, $by)",
      )
      .run({ id, agent, hash, now, expires: expiresAt, by: issuedBy });
    return { id, agent, hash, issued_at: now, expires_at: expiresAt, issued_by: issuedBy, revoked_at: null };
  }

  /** The live token with this hash, if any. */
  byHash(hash: string, now: number): Token | undefined {
    return (
      this.db
        .query<Token, { hash: string; now: number }>(
          "SELECT * FROM tokens WHERE hash = $hash AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $now)",
        )
        .get({ hash, now }) ?? undefined
    );
  }

  /** Every token ever made, oldest first, hashes included: gate/operator leaves them out of what it shows. */
  list(): Token[] {
    return this.db.query<Token, []>("SELECT * FROM tokens ORDER BY issued_at ASC, rowid ASC").all();
  }

  /** Revokes the selected tokens not revoked yet; returns how many. Refuses as LockStore.lock() does. */
  revoke(by: Chosen, now: number): number {
    return this.writeLock.operator(() =>
      endSelected(this.db, { table: "tokens", endColumn: "revoked_at", live: "revoked_at IS NULL" }, by, now),
    );
  }
}
