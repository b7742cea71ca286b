/** A grant for a bench's store: issued now by "bench" for an hour, with nothing narrowing it beyond what is given. */
import type { NewGrant } from "../src/gate/store/grants.ts";

/** The grant `fields` name over the bench's defaults (no record, connection, profile, host, digest or use cap). */
export function benchGrant(fields: Pick<NewGrant, "target" | "agent"> & Partial<NewGrant>, now: number): NewGrant {
  return {
    record: null,
    connection: null,
    profile: null,
    host: null,
    args_digest: null,
    max_uses: null,
    issued_at: now,
    expires_at: now + 3_600_000,
    issued_by: "bench",
    build: "rta bench",
    digest: null,
    ...fields,
  };
}
