import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { whileInsertsRefused } from "../support/refused-inserts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveGame } from "@/lib/games/games";
import { formatUsd } from "@/lib/money";
import { holdSubscriptionForChange, releaseSubscriptionHold, renewSubscriptionHold } from "@/db/queries/refund-leases";
import { ENDING_CHANGE_REFUSAL, PCSTORE_CARD_REFUSAL } from "@/lib/lookup/price-change";
import { cancelSubscription } from "@/lib/refunds/changes";
import { actAs } from "../support/next-request";
import {
  auditLinesOf,
  emulatedSubscription,
  form,
  GAME_ID,
  GAME_SECRET,
  type RefundTestContext,
  seenOf,
  startRefundTest,
  SUBS,
} from "./setup";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { changeAmountAction, changePaymentMethodAction } = await import("@/app/(desk)/subscriptions/actions");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());

type Result = { ok: boolean; code?: string; message?: string; fieldErrors?: Record<string, string> };

const auditOf = (subscriptionId: string) => auditLinesOf(c, subscriptionId);

const seen = (id: string) => seenOf(c.emulator, id);

/** Runs `act` while the audit log refuses every line, or only the outcome lines (those not written before a call). */
async function whileAuditRefuses(which: "every line" | "outcome lines", act: () => Promise<unknown>): Promise<Result> {
  const when = which === "outcome lines" ? sql`new.outcome <> 'requested'` : undefined;
  return whileInsertsRefused(
    c.t.db,
    { table: "audit_log", message: "audit log unavailable", when },
    act,
  ) as Promise<Result>;
}

const subscription = (id: string) => emulatedSubscription(c, id);

describe("price and payment method (finance)", () => {
  it("[support] may not change a price; [finance] stages it for the next renewal", async () => {
    actAs(c.sessions.support);
    expect(
      await changeAmountAction(form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: "12.00" })),
    ).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
    actAs(c.sessions.finance);
    const result = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: "12.00" }),
    )) as Result;
    expect(result).toMatchObject({ ok: true });
    expect(result.message).toMatch(/USD 10.00 → USD 12.00, staged for the next successful renewal/);
    expect(subscription(SUBS.card).pendingAmountUsd?.toFixed(2)).toBe("12.00");
    // Above 500.00 the service would stage an increase it never applies: refused, nothing sent.
    const changesBefore = (await auditOf(SUBS.card)).length;
    const never = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: "600.00" }),
    )) as Result;
    expect(never).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(never.message).toBe(
      "The price cannot be raised above USD 500.00: the service would stage it and never apply it (the old price " +
        "keeps billing). Nothing was sent.",
    );
    expect(await auditOf(SUBS.card)).toHaveLength(changesBefore);
    expect(subscription(SUBS.card).pendingAmountUsd?.toFixed(2)).toBe("12.00");
    const back = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: "12.00" }),
    )) as Result;
    expect(back.message).not.toMatch(/never appl/);
    const entries = await auditOf(SUBS.card);
    expect(entries.at(-1)).toMatchObject({
      action: "subscription.change_amount",
      outcome: "succeeded",
      detail: { result: { change_queued: true } },
    });
  });

  it(
    "[finance] attaches a card to a wallet-only subscription only with the conversion, with the spec's message " +
      "otherwise",
    async () => {
      actAs(c.sessions.finance);
      const refused = (await changePaymentMethodAction(
        form({ subscriptionId: SUBS.walletOnly, seen: await seen(SUBS.walletOnly), cardId: "12", walletOnly: "keep" }),
      )) as Result;
      // Refused by the desk from the subscription as it stands, before anything is sent.
      expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
      expect(refused.message).toBe(
        "It is wallet only: to pay by this card, choose to leave wallet only. Nothing was sent.",
      );
      const again = (await changePaymentMethodAction(
        form({ subscriptionId: SUBS.walletOnly, seen: await seen(SUBS.walletOnly), walletOnly: "yes" }),
      )) as Result;
      expect(again).toMatchObject({
        ok: false,
        code: "CONFLICT",
        message: "It is wallet only already. Nothing was sent.",
      });
      const converted = (await changePaymentMethodAction(
        form({ subscriptionId: SUBS.walletOnly, seen: await seen(SUBS.walletOnly), cardId: "12", walletOnly: "no" }),
      )) as Result;
      expect(converted).toMatchObject({ ok: true });
      expect(converted.message).toMatch(/mastercard •••• 1881/);
      // The audit line names the card by its id and brand, never its digits (viewers read the audit log).
      expect(JSON.stringify((await auditOf(SUBS.walletOnly)).at(-1)?.detail)).not.toContain("1881");
      expect((await auditOf(SUBS.walletOnly)).map((a) => `${a.action}:${a.outcome}`)).toEqual([
        "subscription.change_payment_method:requested",
        "subscription.change_payment_method:succeeded",
      ]);
    },
  );

  it("[finance] a price or card for a subscription set to end, or refused by the pcstore, is not sent", async () => {
    actAs(c.sessions.finance);
    const finance = { actor: { id: "u1", email: "f@x.test" }, via: "web" as const };
    const ending = SUBS.cancelEnd;
    await cancelSubscription(
      c.t.db,
      { gameId: GAME_ID, subscriptionId: ending, atPeriodEnd: true, reason: null, seen: await seen(ending) },
      finance,
    );
    const before = (await auditOf(ending)).length;
    const refusedEnding = { ok: false, code: "CONFLICT", message: `${ENDING_CHANGE_REFUSAL} Nothing was sent.` };
    // The page offers neither (subscription-actions.tsx); a form posted all the same is refused as it would be.
    expect(
      await changeAmountAction(form({ subscriptionId: ending, seen: await seen(ending), amountUsd: "12.00" })),
    ).toMatchObject(refusedEnding);
    expect(
      await changePaymentMethodAction(
        form({ subscriptionId: ending, seen: await seen(ending), cardId: "12", walletOnly: "keep" }),
      ),
    ).toMatchObject(refusedEnding);
    expect(await auditOf(ending)).toHaveLength(before);
    expect(subscription(ending).pendingAmountUsd).toBeNull();

    const pcstore = SUBS.pcstore;
    const raised = subscription(pcstore).amountUsd.plus(1).toFixed(2);
    expect(
      await changeAmountAction(form({ subscriptionId: pcstore, seen: await seen(pcstore), amountUsd: raised })),
    ).toMatchObject({
      ok: false,
      code: "CONFLICT",
      message:
        "The price cannot be raised on a pcstore subscription: the player re-authorizes in the pcstore (a decrease " +
        "stages). Nothing was sent.",
    });
    expect(
      await changePaymentMethodAction(
        form({ subscriptionId: pcstore, seen: await seen(pcstore), cardId: "12", walletOnly: "keep" }),
      ),
    ).toMatchObject({ ok: false, code: "CONFLICT", message: `${PCSTORE_CARD_REFUSAL} Nothing was sent.` });
    expect(await auditOf(pcstore)).toEqual([]);
  });

  it("names the field when nothing is chosen, or a choice the service refuses", async () => {
    actAs(c.sessions.finance);
    const result = (await changePaymentMethodAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), walletOnly: "keep" }),
    )) as Result;
    expect(result).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { cardId: "pick a card, or change wallet only" },
    });
    const both = (await changePaymentMethodAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), cardId: "12", walletOnly: "yes" }),
    )) as Result;
    expect(both).toMatchObject({ fieldErrors: { cardId: "wallet only takes no card: leave the card empty" } });
    const neither = (await changePaymentMethodAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), walletOnly: "no" }),
    )) as Result;
    expect(neither).toMatchObject({ fieldErrors: { cardId: "pick the card to pay with instead of the wallet" } });
    // No card has id 0: refused with the form, not by the service client after the change was logged.
    for (const cardId of ["0", "000"]) {
      const zero = (await changePaymentMethodAction(
        form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), cardId, walletOnly: "keep" }),
      )) as Result;
      expect(zero).toMatchObject({ code: "INVALID_INPUT", fieldErrors: { cardId: "pick one of the player's cards" } });
    }
    // None reached the service.
    expect((await auditOf(SUBS.card)).filter((a) => a.action === "subscription.change_payment_method")).toEqual([]);
  });

  it("[finance] a card subscription made wallet only is told its card was removed", async () => {
    actAs(c.sessions.finance);
    const result = (await changePaymentMethodAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), walletOnly: "yes" }),
    )) as Result;
    expect(result).toMatchObject({ ok: true, message: "Card removed: wallet only, from the next charge." });
  });

  it("[finance] a change decided on a page drawn before a colleague's change is refused, nothing sent", async () => {
    actAs(c.sessions.finance);
    const drawn = await seen(SUBS.card);
    const staged = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: drawn, amountUsd: "14.00" }),
    )) as Result;
    expect(staged.ok, staged.message).toBe(true);
    const changes = (await auditOf(SUBS.card)).length;
    // A second dialog, open since before that price was staged, would replace it unseen: refused, and drawn again.
    const stale = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: drawn, amountUsd: "11.00" }),
    )) as Result;
    expect(stale).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(stale.message).toMatch(/^The subscription changed since this page was drawn/);
    expect(formatUsd(String(subscription(SUBS.card).pendingAmountUsd))).toBe("14.00");
    expect(await auditOf(SUBS.card)).toHaveLength(changes);
    // The check itself unanswered: said so, nothing sent, nothing audited as a change.
    const current = await seen(SUBS.card);
    // A read is asked again on a 5xx: every attempt (the first and four retries) fails.
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.card}`, method: "GET", fault: "503", count: 5 });
    const unread = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: current, amountUsd: "11.00" }),
    )) as Result;
    expect(unread).toMatchObject({ ok: false, code: "SERVICE_ERROR" });
    // Why, and so what to do: a wait here (a rejected secret would say an admin replaces it).
    expect(unread.message).toContain(
      "The service did not give the subscription to check before the change, so nothing was sent: the service is " +
        "unavailable or paused for maintenance. Try again later. (HTTP 503, service_unavailable",
    );
    expect(await auditOf(SUBS.card)).toHaveLength(changes);
    // "Sending the current price clears a staged change": the message says the staged one went.
    const price = formatUsd(String(subscription(SUBS.card).amountUsd));
    const cleared = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: price }),
    )) as Result;
    expect(cleared).toMatchObject({
      ok: true,
      message: `The staged change to USD 14.00 was cleared: the price stays USD ${price}.`,
    });
    expect(subscription(SUBS.card).pendingAmountUsd).toBeNull();
  });

  it("[finance] two changes of one subscription at once: one is made, the other refused, sending nothing", async () => {
    actAs(c.sessions.finance);
    const changes = (await auditOf(SUBS.card)).length;
    const drawn = await seen(SUBS.card);
    // While another request is changing it (on any instance), a change is refused before anything is read or sent.
    const other = { gameId: GAME_ID, subscriptionId: SUBS.card, token: randomUUID() };
    expect(await holdSubscriptionForChange(c.t.db, { ...other, holdMs: 60_000 })).toBe(true);
    try {
      const refused = (await changeAmountAction(
        form({ subscriptionId: SUBS.card, seen: drawn, amountUsd: "12.00" }),
      )) as Result;
      expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
      expect(refused.message).toMatch(/^Another change of this subscription is under way .*: nothing was sent\./);
    } finally {
      await releaseSubscriptionHold(c.t.db, other);
    }
    // A hold whose process died mid-change lapses: once its time is up another change takes it, and the lapsed one
    // can neither renew it (its change is then refused before its call) nor end it.
    const died = { ...other, token: randomUUID() };
    expect(await holdSubscriptionForChange(c.t.db, { ...died, holdMs: -1_000 })).toBe(true);
    const next = { ...other, token: randomUUID() };
    expect(await holdSubscriptionForChange(c.t.db, { ...next, holdMs: 60_000 })).toBe(true);
    expect(await renewSubscriptionHold(c.t.db, { ...died, holdMs: 60_000 })).toBe(false);
    await releaseSubscriptionHold(c.t.db, died);
    expect(await holdSubscriptionForChange(c.t.db, { ...other, token: randomUUID(), holdMs: 60_000 })).toBe(false);
    expect(await renewSubscriptionHold(c.t.db, { ...next, holdMs: 60_000 })).toBe(true);
    await releaseSubscriptionHold(c.t.db, next);
    // A hold that lapsed with no other change taking it is not renewed either: its change is refused, nothing sent.
    const slow = { ...other, token: randomUUID() };
    expect(await holdSubscriptionForChange(c.t.db, { ...slow, holdMs: -1_000 })).toBe(true);
    expect(await renewSubscriptionHold(c.t.db, { ...slow, holdMs: 60_000 })).toBe(false);
    await releaseSubscriptionHold(c.t.db, slow);
    expect(await auditOf(SUBS.card)).toHaveLength(changes);
    // Two prices set at once from pages showing the same subscription: one is staged, the other refused.
    const both = (await Promise.all(
      ["12.00", "15.00"].map((amountUsd) =>
        changeAmountAction(form({ subscriptionId: SUBS.card, seen: drawn, amountUsd })),
      ),
    )) as Result[];
    expect(both.map((r) => r.ok).sort()).toEqual([false, true]);
    const made = both.findIndex((r) => r.ok);
    expect(formatUsd(String(subscription(SUBS.card).pendingAmountUsd))).toBe(made === 0 ? "12.00" : "15.00");
    expect((await auditOf(SUBS.card)).slice(changes).map((a) => a.outcome)).toEqual(["requested", "succeeded"]);
  });

  it("a change the service applied is reported applied though the audit log would not take its outcome", async () => {
    actAs(c.sessions.finance);
    const before = await auditOf(SUBS.card);
    // The line written as the call is sent is taken; the outcome's is not.
    const drawn = await seen(SUBS.card);
    const result = await whileAuditRefuses("outcome lines", () =>
      changeAmountAction(form({ subscriptionId: SUBS.card, seen: drawn, amountUsd: "13.00" })),
    );
    // Staged at the service, and said so: not "something went wrong, try again".
    expect(result).toMatchObject({ ok: true });
    expect(String(subscription(SUBS.card).pendingAmountUsd)).toBe("13");
    expect((await auditOf(SUBS.card)).slice(before.length).map((a) => a.outcome)).toEqual(["requested"]);
  });

  it("sends nothing when the audit log will not take the line of the call", async () => {
    actAs(c.sessions.finance);
    const before = await auditOf(SUBS.card);
    const drawn = await seen(SUBS.card);
    const result = await whileAuditRefuses("every line", () =>
      changeAmountAction(form({ subscriptionId: SUBS.card, seen: drawn, amountUsd: "16.00" })),
    );
    expect(result).toMatchObject({ ok: false, code: "INTERNAL" });
    expect(String(subscription(SUBS.card).pendingAmountUsd)).toBe("13");
    expect(await auditOf(SUBS.card)).toHaveLength(before.length);
    // Its hold ended: the next change goes through.
    const next = (await changeAmountAction(
      form({ subscriptionId: SUBS.card, seen: await seen(SUBS.card), amountUsd: "16.00" }),
    )) as Result;
    expect(next.ok, next.message).toBe(true);
  });

  it("refuses, sending nothing, a change to a subscription the service says is another game's", async () => {
    // The same service game saved again under another id: its secret answers for g-refunds, not for the copy.
    const copy = "g-refunds-copy";
    await saveGame(
      c.t.db,
      {
        id: copy,
        name: "Another game",
        environment: "sandbox",
        baseUrl: c.emulator.url,
        secret: GAME_SECRET,
        webhookSecrets: [],
      },
      { replace: false, as: { actor: null, via: "cli" } },
    );
    const before = subscription(SUBS.walletOnly).cancelAtPeriodEnd;
    const input = { gameId: copy, subscriptionId: SUBS.walletOnly, atPeriodEnd: true, reason: null };
    await expect(
      cancelSubscription(
        c.t.db,
        { ...input, seen: await seen(SUBS.walletOnly) },
        { actor: { id: "u1", email: "f@x.test" }, via: "web" },
      ),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /^The service answered for game g-refunds, not g-refunds-copy: .* Nothing was sent\.$/,
      ),
    });
    expect(subscription(SUBS.walletOnly).cancelAtPeriodEnd).toBe(before);
  });
});
