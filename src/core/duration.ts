/**
 * Durations as a person types them: `30s`, `5m`, `1h30m`, `8h`, `2d`.
 */
import { RtaError } from "./errors.ts";

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS };

/**
 * The longest duration taken: a century. Longer than any grant, lock or token
 * is meant to last (a lock or token with no --ttl already lasts until ended),
 * and short enough that its end is a date: past about 273,000 years from now
 * it is not one, and a grant issued that long was stored and then refused to
 * be shown, so a person was told it failed while it stood.
 */
export const MAX_DURATION_MS = 36_500 * DAY_MS;

/** Milliseconds in `text`; refuses anything but whole numbers with s, m, h or d, zero, and past a century. */
export function parseDuration(text: string, what = "--ttl"): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+)([smhd])/g)];
  const whole = parts.map((p) => p[0]).join("");
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * (UNIT_MS[p[2] as string] as number), 0);
  if (parts.length === 0 || whole !== trimmed || ms <= 0 || !Number.isSafeInteger(ms)) {
    throw new RtaError(
      "core.input.invalid",
      `${what} ${JSON.stringify(text)} is not a duration`,
      `write it like 30s, 5m, 1h30m or 2d`,
    );
  }
  if (ms > MAX_DURATION_MS) {
    throw new RtaError(
      "core.input.range",
      `${what} ${JSON.stringify(text)} is longer than ${MAX_DURATION_MS / DAY_MS}d`,
      `give ${what} a duration up to ${MAX_DURATION_MS / DAY_MS}d`,
    );
  }
  return ms;
}

/** A duration as the fewest units that say it: 5400000 -> "1h30m". */
export function formatDuration(ms: number): string {
  let left = Math.max(0, Math.round(ms / 1000)) * 1000;
  let out = "";
  for (const unit of ["d", "h", "m", "s"]) {
    const size = UNIT_MS[unit] as number;
    if (left >= size) {
      out += `${Math.floor(left / size)}${unit}`;
      left %= size;
    }
  }
  return out || "0s";
}
