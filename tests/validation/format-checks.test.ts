import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { exportIdSchema } from "@/lib/exports/run";
import { baseUrlSchema, gameInputSchema } from "@/lib/games/schemas";
import { usdInputSchema } from "@/lib/money";
import {
  changeAmountInputSchema as serviceChangeAmountSchema,
  listPlayerSubscriptionsInputSchema,
  refundInputSchema,
} from "@/lib/service/inputs";
import { snapshotWindowInputSchema } from "@/lib/snapshots/progress";
import { monthKeySchema } from "@/lib/time";
import {
  changeAmountInputSchema,
  confirmRefundInputSchema,
  previewRefundInputSchema,
} from "@/app/(desk)/subscriptions/schemas";
import { parseEventLogFilters } from "@/app/(desk)/webhooks/table-state";
import { createPaymentFileSchema } from "@/lib/payments/schemas";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { liabilityHref, parseLiabilityQuery } from "@/app/(desk)/payouts/liability/query";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

/**
 * zod 4 keeps checking after a failed check unless told to stop, so a refinement written after a format check sees
 * text that is not in the format (`new Money("")` threw on every subscription page). Each schema that refines after a
 * format check, given malformed input, must answer with its format error alone, and never throw.
 */

type Case = { name: string; schema: z.ZodType; input: unknown; path: string; message: RegExp };

const USD_FORMAT = /^must be an amount in USD with at most two decimals/;
const SUB = "SUB_1767225600_AB12CD34";

const CASES: Case[] = [
  ...["", "abc", "12,50", " ", "1e3", "-5"].map((input) => ({
    name: `usdInputSchema ${JSON.stringify(input)}`,
    schema: usdInputSchema,
    input,
    path: "",
    message: USD_FORMAT,
  })),
  {
    name: "monthKeySchema 2026-3",
    schema: monthKeySchema,
    input: "2026-3",
    path: "",
    message: /^must be a month such as 2026-03$/,
  },
  {
    name: "monthKeySchema empty",
    schema: monthKeySchema,
    input: "",
    path: "",
    message: /^must be a month such as 2026-03$/,
  },
  {
    name: "snapshot window month",
    schema: snapshotWindowInputSchema,
    input: { month: "March" },
    path: "month",
    message: /^must be a month such as 2026-03$/,
  },
  {
    name: "snapshotWindowInputSchema month left empty",
    schema: snapshotWindowInputSchema,
    input: { mode: "month", month: "" },
    path: "month",
    message: /^is required \(a month such as 2026-03\)$/,
  },
  { name: "baseUrlSchema", schema: baseUrlSchema, input: "not a url", path: "", message: /^must be a URL/ },
  {
    name: "gameInputSchema base URL",
    schema: gameInputSchema,
    input: { id: "g1", name: "G", environment: "sandbox", baseUrl: "::", secret: "secret-123", webhookSecrets: [] },
    path: "baseUrl",
    message: /^must be a URL/,
  },
  { name: "exportIdSchema", schema: exportIdSchema, input: "1234", path: "", message: /^must be an id such as/ },
  {
    name: "service email",
    schema: listPlayerSubscriptionsInputSchema,
    input: { playerEmail: "a" },
    path: "playerEmail",
    message: />=3 characters/,
  },
  {
    name: "service refund key",
    schema: refundInputSchema,
    input: { clientRequestId: "" },
    path: "clientRequestId",
    message: />=1 characters/,
  },
  {
    name: "service refund amount",
    schema: refundInputSchema,
    input: { clientRequestId: "k1", amountUsd: "abc" },
    path: "amountUsd",
    message: USD_FORMAT,
  },
  {
    name: "service price change",
    schema: serviceChangeAmountSchema,
    input: { amountUsd: "" },
    path: "amountUsd",
    message: USD_FORMAT,
  },
  ...["", "abc", "12,50"].map((amountUsd) => ({
    name: `refund review amount ${JSON.stringify(amountUsd)}`,
    schema: previewRefundInputSchema,
    input: { subscriptionId: SUB, periodId: "17", mode: "partial", amountUsd, reason: "ticket 1" },
    path: "amountUsd",
    message: USD_FORMAT,
  })),
  {
    name: "refund confirm amount",
    schema: confirmRefundInputSchema,
    input: { subscriptionId: SUB, periodId: "17", periodSeq: "1", amountUsd: "12,50", remainingBeforeUsd: "20.00" },
    path: "amountUsd",
    message: USD_FORMAT,
  },
  {
    name: "payout email past 254 characters (the file limit's check does not run on it)",
    schema: payoutDetailsInputSchema,
    input: { method: "paypal", currency: "USD", paypalEmail: `${"a".repeat(250)}@x.co` },
    path: "paypalEmail",
    message: /^must be at most 254 characters$/,
  },
  // A period number past the database's integer, in exponent or hexadecimal form, is refused on its field.
  ...["3000000000", "1e3", "0x1F", ""].map((periodSeq) => ({
    name: `refund confirm period number ${JSON.stringify(periodSeq)}`,
    schema: confirmRefundInputSchema,
    input: { subscriptionId: SUB, periodId: "17", periodSeq, amountUsd: "12.50", remainingBeforeUsd: "20.00" },
    path: "periodSeq",
    message: /^must be a period number$/,
  })),
  ...["1e3", "0x1F", "1234567890123456"].map((periodId) => ({
    name: `refund review period id ${JSON.stringify(periodId)}`,
    schema: previewRefundInputSchema,
    input: { subscriptionId: SUB, periodId, mode: "full", reason: "ticket 1" },
    path: "periodId",
    message: /^must be a period id$/,
  })),
  {
    name: "price change form",
    schema: changeAmountInputSchema,
    input: { subscriptionId: SUB, seen: "active|renewing", amountUsd: "" },
    path: "amountUsd",
    message: USD_FORMAT,
  },
];

describe("a format check stops before the refinements that assume it", () => {
  for (const c of CASES) {
    it(`${c.name}: the format error alone, no exception`, () => {
      let result: ReturnType<z.ZodType["safeParse"]> | undefined;
      expect(() => {
        result = c.schema.safeParse(c.input);
      }).not.toThrow();
      expect(result?.success).toBe(false);
      const issues = result?.error?.issues ?? [];
      expect(issues.map((i) => i.path.join("."))).toEqual([c.path]);
      expect(issues[0]?.message).toMatch(c.message);
    });
  }

  it("a payment file's EUR rate ten times too large or small is refused, a plausible one taken", () => {
    const input = { batchId: "5b0c7f5e-3d3a-4a57-9a39-1f5c2f1d9a10", method: "sepa", rateSource: "ECB" };
    for (const eurRate of ["9.2345", "0.092345"]) {
      const result = createPaymentFileSchema.safeParse({ ...input, eurRate });
      expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
        ["eurRate", "must be EUR for one USD, between 0.5 and 1.5 (such as 0.92): check the rate"],
      ]);
    }
    expect(createPaymentFileSchema.parse({ ...input, eurRate: "0.92345" }).eurRate).toBe("0.92345");
    // A source without its rate is refused on the rate left empty, a rate without its source on the source.
    expect(createPaymentFileSchema.safeParse(input).error?.issues.map((i) => i.path.join("."))).toEqual(["eurRate"]);
    const noSource = createPaymentFileSchema.safeParse({ ...input, rateSource: "", eurRate: "0.92" });
    expect(noSource.error?.issues.map((i) => i.path.join("."))).toEqual(["rateSource"]);
    const malformed = createPaymentFileSchema.safeParse({ ...input, eurRate: "0,92" });
    expect(malformed.error?.issues.map((i) => i.message)).toEqual([
      "must be a rate such as 0.92345678 (digits, at most 8 decimal places)",
    ]);
  });

  it("a payment file's execution date in the past or a year out is refused, today and next week taken", () => {
    const input = { batchId: "5b0c7f5e-3d3a-4a57-9a39-1f5c2f1d9a10", method: "paypal" };
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const refused = (executionDate: string) =>
      createPaymentFileSchema.safeParse({ ...input, executionDate }).error?.issues.map((i) => i.message);
    expect(refused(day(-3))).toEqual(["cannot be in the past"]);
    expect(refused(day(400))).toEqual(["must be within the next 90 days"]);
    expect(refused("2026-02-30")).toEqual(["is not a date"]);
    for (const offset of [0, 7])
      expect(createPaymentFileSchema.parse({ ...input, executionDate: day(offset) }).executionDate).toBe(day(offset));
  });

  it("the refund review gives the partial amount as checked: spaces around a pasted amount are gone", () => {
    const input = { subscriptionId: SUB, periodId: "17", mode: "partial", amountUsd: " 12.50 ", reason: "" };
    expect(previewRefundInputSchema.parse(input).amountUsd).toBe("12.50");
    expect(previewRefundInputSchema.parse({ ...input, mode: "full" }).amountUsd).toBeUndefined();
  });

  it("the event log drops a malformed day without asking whether it is a real one", () => {
    expect(parseEventLogFilters({ from: "2026-13-45x", to: "yesterday" })).toMatchObject({
      from: undefined,
      to: undefined,
    });
    expect(parseEventLogFilters({ from: "2026-03-01" })).toMatchObject({
      from: "2026-03-01",
      fromMs: Date.parse("2026-03-01T00:00:00Z"),
    });
  });

  it("the liability page drops a day or a page that is not one, and its page links keep the day", () => {
    expect(parseLiabilityQuery({})).toEqual({ asOf: undefined, page: 1 });
    for (const typed of ["2026-13-45x", "yesterday", "2026-02-30", ""])
      expect(parseLiabilityQuery({ asOf: typed })).toEqual({ asOf: null, page: 1 });
    expect(parseLiabilityQuery({ asOf: ["2026-04-30", "2026-05-01"], page: "3" })).toEqual({
      asOf: "2026-04-30",
      page: 3,
    });
    for (const page of ["0", "-2", "2.5", "abc", "1e9"])
      expect(parseLiabilityQuery({ asOf: "2026-04-30", page }).page).toBe(1);
    expect(liabilityHref("2026-04-30", 1)).toBe("/payouts/liability?asOf=2026-04-30");
    expect(liabilityHref("2026-04-30", 4)).toBe("/payouts/liability?asOf=2026-04-30&page=4");
  });
});

describe("forms given a malformed amount or date say what is wrong and keep what was typed", () => {
  let t: TestDatabase;
  let subscriptions: typeof import("@/app/(desk)/subscriptions/actions");
  let batchActions: typeof import("@/app/(desk)/payouts/batch-actions");
  let refundSettings: typeof import("@/app/(desk)/settings/refunds/actions");

  beforeAll(async () => {
    t = await createTestDatabase();
    applyTestEnv(t);
    subscriptions = await import("@/app/(desk)/subscriptions/actions");
    batchActions = await import("@/app/(desk)/payouts/batch-actions");
    refundSettings = await import("@/app/(desk)/settings/refunds/actions");
  });
  afterAll(async () => t?.drop());

  const form = (values: Record<string, string>) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(values)) data.set(key, value);
    return data;
  };

  it("[support] a refund amount typed as abc, 12,50 or left empty", async () => {
    actAs(await signInAs(t.db, "support"));
    for (const amountUsd of ["abc", "12,50", ""]) {
      const values = {
        subscriptionId: SUB,
        periodId: "17",
        mode: "partial",
        amountUsd,
        reason: "Charged twice, ticket 5512",
      };
      const result = await subscriptions.previewRefundAction(null, form(values));
      expect(result, amountUsd).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { amountUsd: expect.stringMatching(USD_FORMAT) },
      });
      expect(result.ok ? null : result.values).toEqual(values);
    }
  });

  it("[support] a reason holding a NUL character is refused on its field, not failed by the database", async () => {
    actAs(await signInAs(t.db, "support"));
    const values = { subscriptionId: SUB, periodId: "17", mode: "full", reason: "Charged twice\u0000" };
    const result = await subscriptions.previewRefundAction(null, form(values));
    expect(result).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { reason: "holds a NUL character, which is not accepted: type it again" },
    });
    expect(result.ok ? null : result.values).toEqual(values);
  });

  it("[finance] a price change left empty", async () => {
    actAs(await signInAs(t.db, "finance"));
    const result = await subscriptions.changeAmountAction(
      null,
      form({ subscriptionId: SUB, seen: "active|renewing", amountUsd: "" }),
    );
    expect(result).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { amountUsd: expect.stringMatching(USD_FORMAT) },
      values: { amountUsd: "" },
    });
  });

  it("[finance] a payment date that is not a date gets one message", async () => {
    actAs(await signInAs(t.db, "finance"));
    // 2026-02-30 is refused as it is, not read as 2 March.
    for (const paidOn of ["soon", "2026-99-99", "2026-02-30"]) {
      const values = { batchId: "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11", paidOn, method: "wise", reference: "WISE-1" };
      const result = await batchActions.markPaidAction(null, form(values));
      expect(result, paidOn).toMatchObject({ ok: false, code: "INVALID_INPUT", values: { paidOn } });
      expect(result.ok ? null : result.message).toMatch(/^Paid on (must be a date such as 2026-11-25|is not a date)$/);
    }
  });

  it("[admin] a support refund limit left empty", async () => {
    actAs(await signInAs(t.db, "admin"));
    const result = await refundSettings.saveSupportRefundLimitAction(null, form({ amountUsd: "" }));
    expect(result).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { amountUsd: expect.stringMatching(USD_FORMAT) },
      values: { amountUsd: "" },
    });
  });
});
