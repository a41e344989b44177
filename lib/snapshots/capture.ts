import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "@/db";
import type { FetchLike, ServiceClient, ServiceClientConfig } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";

/**
 * A game's service client that also keeps the text of each successful answer, so that what the service sent can be
 * stored exactly as sent (the client itself hands back parsed values only). Every call made inside `capture` sees
 * its own slot, so concurrent calls never mix their bodies up.
 */
type Slot = { body: string | null };
const slots = new AsyncLocalStorage<Slot>();

/**
 * A response whose body was already read as text. The client reads the body with text() only; handing it the string
 * itself spares encoding a page of a megabyte back to bytes and decoding it a second time.
 */
class TextResponse extends Response {
  readonly #text: string;

  constructor(text: string, from: Response) {
    super(null, { status: from.status, statusText: from.statusText, headers: from.headers });
    this.#text = text;
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#text);
  }

  override json(): Promise<unknown> {
    return Promise.resolve().then(() => JSON.parse(this.#text) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(new TextEncoder().encode(this.#text).buffer as ArrayBuffer);
  }

  override clone(): Response {
    return new TextResponse(this.#text, this);
  }
}

function capturingFetch(inner: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    const slot = slots.getStore();
    if (!slot || !response.ok) return response;
    const text = await response.text();
    slot.body = text;
    return new TextResponse(text, response);
  };
}

export type CapturingClient = {
  client: ServiceClient;
  /** Runs one client call and returns its parsed value with the body it was parsed from. */
  capture<T>(call: (client: ServiceClient) => Promise<T>): Promise<{ value: T; raw: string }>;
};

export async function createCapturingClient(
  db: Db,
  gameId: string,
  overrides: Partial<ServiceClientConfig> = {},
): Promise<CapturingClient> {
  const inner: FetchLike = overrides.fetch ?? ((url, init) => fetch(url, init));
  const client = await serviceClientForGame(db, gameId, { ...overrides, fetch: capturingFetch(inner) });
  return {
    client,
    async capture(call) {
      const slot: Slot = { body: null };
      const value = await slots.run(slot, () => call(client));
      return { value, raw: slot.body ?? JSON.stringify(value) };
    },
  };
}
