import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PayoutDetailsForm } from "@/app/(desk)/recipients/[playerId]/profile-form";

/**
 * The payout details form as the server draws it, before the page's script runs: were it sent then (Enter in the
 * IBAN on a slow link), the browser would send it its own way, which must be a POST, never a GET putting the IBAN
 * into the address, the history and an access log.
 */
describe("the payout details form before the page's script runs", () => {
  it("is a POST form, with the bank fields of a recipient paid by bank transfer", () => {
    const html = renderToString(
      createElement(PayoutDetailsForm, {
        action: async () => ({ ok: true as const, message: "" }),
        gameId: "demo-game",
        playerId: 100006,
        current: { method: "bank_transfer", currency: "EUR" },
        firstDetails: false,
      }),
    );
    const form = /<form[^>]*aria-label="Payout details"[^>]*>/.exec(html)?.[0] ?? "";
    expect(form).toMatch(/method="post"/);
    expect(html).toMatch(/name="iban"/);
  });
});
