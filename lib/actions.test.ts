import { describe, expect, it } from "vitest";
import { echoValues } from "./actions";

describe("echoValues", () => {
  it("sends back what was typed, but never payout details or an imported file's text", () => {
    const typed = {
      batchId: "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11",
      mode: "dry-run",
      format: "wise",
      text: "reference,status,IBAN\r\nR-1,outgoing_payment_sent,DE89370400440532013000\r\n",
      csv: "player_id,iban\r\n7,DE89370400440532013000\r\n",
      iban: "DE89370400440532013000",
      accountHolder: "Ada Lovelace",
      paypalEmail: "ada@example.com",
      password: "hunter2-hunter2",
      amountUsd: "12.50",
    };
    expect(echoValues(typed)).toEqual({
      batchId: "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11",
      mode: "dry-run",
      format: "wise",
      amountUsd: "12.50",
    });
  });
});
