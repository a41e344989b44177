import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "@/db";
import type { ServiceClient, ServiceClientConfig } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";

/**
 * A game's service client that also keeps the bytes of each successful answer, so that what the service sent can be
 * stored exactly as sent (the client itself hands back parsed values only), with no second encoding of its text.
 * Every call made inside `capture` sees its own slot, so concurrent calls never mix their bodies up.
 */
type Slot = { body: Buffer | null; onBody?: () => void };
const slots = new AsyncLocalStorage<Slot>();

/**
 * Keeps a successful answer's bytes in the slot of the call that read it, and tells the call's `onBody`. Only a
 * successful one: the next page's request may leave then, while this one is parsed; after a refusal (a 429 and the
 * wait it asks for, recorded once this returns) it waits for the call's end.
 */
function keepBody(status: number, bytes: Buffer): void {
  const slot = slots.getStore();
  if (!slot || status < 200 || status >= 300) return;
  slot.body = bytes;
  slot.onBody?.();
}

/** The body the capture slot of the current async context holds (tests: nothing once its call has returned). */
export function bodyHeldInContext(): Buffer | null {
  return slots.getStore()?.body ?? null;
}

export type CapturingClient = {
  client: ServiceClient;
  /**
   * Runs one client call and returns its parsed value with the body it was parsed from; `onBody` hears of each
   * successful answer read, before it is parsed.
   */
  capture<T>(call: (client: ServiceClient) => Promise<T>, onBody?: () => void): Promise<{ value: T; raw: Buffer }>;
};

export async function createCapturingClient(
  db: Db,
  gameId: string,
  overrides: Partial<ServiceClientConfig> = {},
): Promise<CapturingClient> {
  const observe = overrides.observeBody;
  const client = await serviceClientForGame(db, gameId, {
    ...overrides,
    observeBody: (status, text, bytes) => {
      keepBody(status, bytes);
      observe?.(status, text, bytes);
    },
  });
  return {
    client,
    async capture(call, onBody) {
      const slot: Slot = { body: null, onBody };
      const value = await slots.run(slot, () => call(client));
      const raw = slot.body ?? Buffer.from(JSON.stringify(value));
      // Whatever the call opened inside the slot (a kept-alive socket, a timer) keeps the slot as its async context
      // for as long as it lives: it must not keep the body too.
      slot.body = null;
      slot.onBody = undefined;
      return { value, raw };
    },
  };
}
