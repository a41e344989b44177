import { isValidElement, type ReactNode } from "react";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveGame } from "@/lib/games/games";
import { actAs } from "../support/next-request";
import { form, GAME_ID, GAME_SECRET, PLAYER, periodIdOf, type RefundTestContext, startRefundTest, SUBS } from "./setup";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { switchGameAction } = await import("@/app/(desk)/actions");
const { default: PeriodPage } = await import("@/app/(desk)/subscriptions/periods/[periodId]/page");
const { default: PlayerPage } = await import("@/app/(desk)/subscriptions/players/[email]/page");
const { default: SubscriptionPage } = await import("@/app/(desk)/subscriptions/[subscriptionId]/page");

/** The same service game saved again under another id: its secret answers for g-refunds, not for the copy. */
const COPY = "g-refunds-copy";

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
  await saveGame(
    c.t.db,
    {
      id: COPY,
      name: "Copy",
      environment: "sandbox",
      baseUrl: c.emulator.url,
      secret: GAME_SECRET,
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
  actAs(c.sessions.support);
});
afterAll(async () => c?.close());

/** Every text and value a page's elements carry (their props, children and breadcrumbs included), unrendered. */
function textsOf(node: unknown, out: string[] = []): string[] {
  if (typeof node === "string" || typeof node === "number") out.push(String(node));
  else if (Array.isArray(node)) for (const child of node) textsOf(child, out);
  else if (isValidElement(node)) textsOf(node.props, out);
  else if (node !== null && typeof node === "object") for (const value of Object.values(node)) textsOf(value, out);
  return out;
}

async function onGame(gameId: string): Promise<void> {
  await expect(switchGameAction(form({ gameId }))).rejects.toThrow("NEXT_REDIRECT");
}

/** Each page, with a text it shows only when it shows the record. */
const pages: Record<string, { render: () => Promise<ReactNode>; shows: string }> = {
  period: {
    render: () => PeriodPage({ params: Promise.resolve({ periodId: String(periodIdOf(SUBS.basic, 1)) }) }),
    shows: SUBS.basic,
  },
  player: {
    render: () =>
      PlayerPage({
        params: Promise.resolve({ email: encodeURIComponent(PLAYER.email) }),
        searchParams: Promise.resolve({}),
      }),
    shows: "Balances by currency",
  },
  subscription: {
    render: () =>
      SubscriptionPage({ params: Promise.resolve({ subscriptionId: SUBS.basic }), searchParams: Promise.resolve({}) }),
    shows: PLAYER.email,
  },
};

describe("a page of another game's records (its secret saved for this game)", () => {
  it.each(Object.keys(pages))("refuses the %s page, showing none of it", async (name) => {
    const page = pages[name];
    if (!page) throw new Error(name);
    await onGame(GAME_ID);
    const shown = textsOf(await page.render()).join("\n");
    expect(shown).toContain(page.shows);
    expect(shown).not.toContain("The service answered for game");

    await onGame(COPY);
    const refused = textsOf(await page.render()).join("\n");
    expect(refused).toContain("The service answered for game g-refunds, not g-refunds-copy");
    expect(refused).not.toContain(page.shows);
    expect(refused).not.toContain("Refund this period");
  });

  it("refuses the period page when its subscription cannot be read to say whose it is", async () => {
    await onGame(COPY);
    // The period reads; its subscription, which says which game it belongs to, does not (each try answered 503).
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.basic}`, method: "GET", fault: "503", count: 2 });
    const refused = textsOf(await pages.period?.render()).join("\n");
    expect(refused).toContain("Try again");
    expect(refused).not.toContain("Period figures");
    expect(refused).not.toContain("Refund this period");
  });
});
