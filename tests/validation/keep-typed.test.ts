import { describe, expect, it } from "vitest";
import { UNANSWERED_ACTION } from "@/lib/action-result";
import { keepTyped } from "@/app/_components/forms/keep-typed";

describe("keepTyped", () => {
  it("reads an answer that never came as a refusal saying so, with what was typed but secrets", async () => {
    const form = new FormData();
    form.set("studioName", "Northwind Games");
    form.set("linkDays", "400");
    form.set("iban", "DE89370400440532013000");
    form.set("webhookSecret", "whsec_live_x");
    form.set("file", new Blob(["a,b"]), "profiles.csv");
    const lost = keepTyped(async () => {
      throw new TypeError("Failed to fetch");
    });
    expect(await lost(null, form)).toEqual({
      ok: false,
      code: "INTERNAL",
      message: UNANSWERED_ACTION,
      values: { studioName: "Northwind Games", linkDays: "400" },
    });
  });

  it("lets the framework's redirect go on as it would", async () => {
    const redirect = Object.assign(new Error("NEXT_REDIRECT"), { digest: "NEXT_REDIRECT;push;/payouts;307;" });
    const signedIn = keepTyped(async () => {
      throw redirect;
    });
    await expect(signedIn(null, new FormData())).rejects.toBe(redirect);
  });

  it("passes an answer through as it came", async () => {
    const answered = keepTyped(async () => ({ ok: true as const, message: "Saved." }));
    expect(await answered(null, new FormData())).toEqual({ ok: true, message: "Saved." });
  });
});
