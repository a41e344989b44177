import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { decodeKey, serverActionsKey } from "./crypto";
import { applyServerActionsKey, serverActionsEncryptionKey } from "./server-actions-key.mjs";

const saved = { ...process.env };
afterEach(() => {
  for (const name of ["PAYOUT_DESK_KEY", "NEXT_SERVER_ACTIONS_ENCRYPTION_KEY"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("the server actions' encryption key", () => {
  it("is a 32-byte AES key in base64, the same for the same PAYOUT_DESK_KEY and another for another", () => {
    const master = randomBytes(32).toString("base64");
    const key = serverActionsKey(decodeKey(master));
    expect(Buffer.from(key, "base64")).toHaveLength(32);
    expect(Buffer.from(key, "base64").toString("base64")).toBe(key);
    expect(serverActionsKey(decodeKey(master))).toBe(key);
    expect(serverActionsKey(decodeKey(randomBytes(32).toString("base64")))).not.toBe(key);
    expect(key).not.toBe(master);
  });

  it("next.config derives the same key as lib/crypto from PAYOUT_DESK_KEY, and keeps one set explicitly", () => {
    const master = randomBytes(32).toString("base64");
    expect(serverActionsEncryptionKey(master)).toBe(serverActionsKey(decodeKey(master)));

    const env: Record<string, string | undefined> = { PAYOUT_DESK_KEY: master };
    applyServerActionsKey(env);
    expect(env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY).toBe(serverActionsKey(decodeKey(master)));

    const explicit = randomBytes(32).toString("base64");
    const set: Record<string, string | undefined> = {
      PAYOUT_DESK_KEY: master,
      NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: explicit,
    };
    applyServerActionsKey(set);
    expect(set.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY).toBe(explicit);

    const none: Record<string, string | undefined> = { PAYOUT_DESK_KEY: "not a key" };
    applyServerActionsKey(none);
    expect(none.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY).toBeUndefined();
  });

  it("loading next.config.mjs sets it in the process that builds or serves", async () => {
    const master = randomBytes(32).toString("base64");
    process.env.PAYOUT_DESK_KEY = master;
    delete process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY;
    // @ts-expect-error next.config.mjs has no type declarations; it is loaded for its effect on process.env
    await import("../next.config.mjs");
    expect(process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY).toBe(serverActionsKey(decodeKey(master)));
  });
});
