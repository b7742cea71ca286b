/**
 * Where an MCP client's user is asked to accept a call on a confirm list
 * (stage 9, src/gate/consent.ts), in each era:
 *
 * - 2025-11-25: the server sends `elicitation/create` to a client that
 *   declared elicitation, and waits for the answer up to consent_timeout.
 * - 2026-07-28: the first `tools/call` is answered `input_required`, with an
 *   `elicitation/create` input request and a request state; only a retry that
 *   echoes that state and whose `inputResponses` accepts runs the call. The
 *   state is sealed with an HMAC under a key derived from the record's key,
 *   binds the call (server session, agent, tool, arguments), expires with
 *   consent_timeout and is taken once: altered, for another call, late or
 *   replayed, it is refused.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { AgentOrigin } from "../core/call.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { confirmConfig } from "../core/configConfirm.ts";
import { RtaError } from "../core/errors.ts";
import {
  type ConsentAnswer,
  type ConsentPrompt,
  type ConsentSeat,
  confirmList,
  needsConsent,
} from "../gate/consent.ts";
import type { Deps } from "../gate/deps.ts";
import { recordKey } from "../record/key.ts";
import { isModernRevision } from "./eras.ts";

/** What the client is asked to fill: nothing; accepting or declining is the answer. */
const NO_FIELDS = { type: "object" as const, properties: {} };

/** A seat an MCP front hands the pipeline: it may end the call with a question for the client to put. */
export interface McpSeat extends ConsentSeat {
  /** set when ask() threw core.consent.asked: the input_required result to answer with */
  question?: InputRequiredResult;
  /** set when the request state a retry brought was refused: answered as a JSON-RPC error, as the spec asks */
  stale?: boolean;
}

/** The call a seat asks about, as a request state binds it. */
export interface AskedCall {
  session: string;
  origin: AgentOrigin;
  tool: string;
  args: Record<string, unknown>;
  dataDir: string;
}

/** The seat for one tools/call: pushed elicitation on 2025-11-25, an input_required round on 2026-07-28. Refuses nothing. */
export function consentSeat(server: Server, reqCtx: ServerContext, call: AskedCall): McpSeat {
  const modern = isModernRevision(server.getNegotiatedProtocolVersion());
  return modern ? new RoundTripSeat(reqCtx, call) : new PushSeat(server, reqCtx);
}

/**
 * Whether a call to `tool` may have to ask a person (it is on a confirm list,
 * the policy lets a grant be asked for, or the policy does not read so no one
 * can tell): the stdio direct path,
 * which has no seat, leaves such a call to the SDK's handler. Refuses nothing.
 */
export function mayAsk(tool: string, catalogue: Catalogue, deps: Deps): boolean {
  try {
    const policy = deps.policy.current();
    if (policy.askForGrants === true) return true;
    const config = confirmConfig(deps.config.current());
    // an operator's list that cannot be known: every call is asked (gate/consent.ts)
    if (config === undefined) return true;
    const list = confirmList(policy, config);
    if (list.length === 0) return false;
    const cap = catalogue.byTool(tool);
    return cap !== undefined && needsConsent(cap, list);
  } catch {
    return true;
  }
}

/** 2025-11-25: `elicitation/create` sent to the client, answered within the prompt's time. */
class PushSeat implements McpSeat {
  constructor(
    private readonly server: Server,
    private readonly reqCtx: ServerContext,
  ) {}

  async ask(prompt: ConsentPrompt, signal: AbortSignal): Promise<ConsentAnswer> {
    if (!this.server.getClientCapabilities()?.elicitation) return "unavailable";
    try {
      const answer = await this.reqCtx.mcpReq.elicitInput(
        { mode: "form", message: prompt.message, requestedSchema: fieldsOf(prompt) },
        { timeout: prompt.timeoutMs, signal },
      );
      return answerOf(prompt, answer);
    } catch (err) {
      // the call was cancelled, or its session ended, while the person was asked: said so, on the record too
      if (signal.aborted)
        throw new RtaError("core.call.cancelled", "the caller cancelled the call while a person was being asked");
      if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) return "timeout";
      return "unavailable";
    }
  }
}

/** What the client is asked to fill: nothing for a call (accepting is the answer), the choice for a grant. */
function fieldsOf(prompt: ConsentPrompt) {
  if (!prompt.choices) return NO_FIELDS;
  return {
    type: "object" as const,
    properties: { for: { type: "string" as const, title: "for", enum: prompt.choices } },
    required: ["for"],
  };
}

/** The person's answer as stage 9 takes it: accepted (with the choice made, for a grant) or declined. */
function answerOf(prompt: ConsentPrompt, answer: { action: string; content?: Record<string, unknown> }): ConsentAnswer {
  if (answer.action !== "accept") return "decline";
  if (!prompt.choices) return "accept";
  const chosen = answer.content?.for;
  return typeof chosen === "string" && prompt.choices.includes(chosen) ? { chosen } : "decline";
}

/** What a request state holds: the call's digest, what was asked, and a nonce taken once. */
interface Sealed {
  d: string;
  k: string;
  n: string;
}

/**
 * 2026-07-28: the question rides in the answer; the retry brings the person's
 * answer and the sealed state. A call may be asked twice (a grant, then the
 * call itself): the state brought back answers the question it was minted
 * for, once, and the next question is put in a new round.
 */
class RoundTripSeat implements McpSeat {
  question?: InputRequiredResult;
  stale?: boolean;
  /** the state this request brought, verified and taken; undefined until the first ask */
  private brought?: Sealed | null;

  constructor(
    private readonly reqCtx: ServerContext,
    private readonly call: AskedCall,
  ) {}

  async ask(prompt: ConsentPrompt): Promise<ConsentAnswer> {
    const { mcpReq } = this.reqCtx;
    const codec = codecFor(this.call.dataDir, prompt.timeoutMs);
    const digest = callDigest(this.call);
    if (this.brought === undefined) this.brought = await this.taken(codec, digest, prompt.timeoutMs);
    if (this.brought?.k === prompt.kind) {
      this.brought = null;
      const view = inputResponse(mcpReq.inputResponses, prompt.kind);
      if (view.kind === "elicit") return answerOf(prompt, view);
      // a state with no answer to it: asked again, under a new state
    }
    const caps = (mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
      | { elicitation?: unknown }
      | undefined;
    if (!caps?.elicitation) return "unavailable";
    const requestState = await codec.mint({ d: digest, k: prompt.kind, n: randomBytes(16).toString("base64url") });
    this.question = inputRequired({
      inputRequests: {
        [prompt.kind]: inputRequired.elicit({
          mode: "form",
          message: prompt.message,
          requestedSchema: fieldsOf(prompt),
        }),
      },
      requestState,
    });
    throw new RtaError(
      "core.consent.asked",
      `${prompt.capability} waits for a person's answer: the client was asked to put the question to its user`,
      "retry with the person's answer, as the client does on its own",
    );
  }

  /** The state the request brought, verified against this call and taken once; null when it brought none. */
  private async taken(codec: ReturnType<typeof codecFor>, digest: string, timeoutMs: number): Promise<Sealed | null> {
    const { mcpReq } = this.reqCtx;
    const state = mcpReq.requestState<unknown>();
    const answers = mcpReq.inputResponses ?? {};
    if (state === undefined && !Object.hasOwn(answers, "consent") && !Object.hasOwn(answers, "grant")) return null;
    let sealed: Sealed;
    try {
      if (typeof state !== "string") throw new Error("no state");
      sealed = (await codec.verify(state, this.reqCtx)) as Sealed;
      if (sealed?.d !== digest || typeof sealed.n !== "string" || typeof sealed.k !== "string") throw new Error("");
    } catch {
      this.stale = true;
      throw staleState();
    }
    if (!takeNonce(sealed.n, Date.now() + timeoutMs)) {
      this.stale = true;
      throw staleState();
    }
    return sealed;
  }
}

function staleState(): RtaError {
  return new RtaError(
    "core.consent.declined",
    "the consent answer came with a request state that was altered, is for another call, has expired or was used already",
    "call the tool again to have the person asked anew",
  );
}

/** The call a state is bound to: the server session, the agent, the tool and its arguments, canonical. Refuses nothing. */
export function callDigest(call: AskedCall): string {
  return createHash("sha256")
    .update(JSON.stringify([call.session, call.origin.name, call.tool, canonical(call.args)]))
    .digest("base64url");
}

/** A value with every object's keys sorted, so the same arguments give the same digest however they were sent. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  // no prototype: a key named __proto__ (an upstream's schema may let one through) is kept as any key, not dropped
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
  return out;
}

/** The state key for each data dir: derived from the record's key, never the key itself. */
const stateKeys = new Map<string, Buffer>();

function codecFor(dataDir: string, timeoutMs: number) {
  let key = stateKeys.get(dataDir);
  if (key === undefined) {
    key = createHmac("sha256", recordKey(dataDir)).update("rta consent request state 1").digest();
    stateKeys.set(dataDir, key);
  }
  return createRequestStateCodec<Sealed>({ key, ttlSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) });
}

/** Nonces already taken, each kept until its state would have expired anyway. */
const taken = new Map<string, number>();

/** Takes a nonce once: false when it was taken already (a replayed state). */
function takeNonce(nonce: string, keepUntil: number): boolean {
  const now = Date.now();
  for (const [n, until] of taken) if (until < now) taken.delete(n);
  if (taken.has(nonce)) return false;
  taken.set(nonce, keepUntil);
  return true;
}
