import { describe, expect, it } from "vitest";
import { readEnv } from "@/core/env";

describe("the environment", () => {
  it("refuses a payer account that is no IBAN or BIC when read, naming the variable and not the value", () => {
    expect(() => readEnv({ PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013001" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_IBAN: must be a valid IBAN$/,
    );
    expect(() => readEnv({ PAYOUT_DESK_PAYER_BIC: "COBA" })).toThrow(
      /^Invalid environment variable PAYOUT_DESK_PAYER_BIC:/,
    );
    expect(
      readEnv({ PAYOUT_DESK_PAYER_IBAN: "de89 3704 0044 0532 0130 00", PAYOUT_DESK_PAYER_BIC: "cobadeffxxx" }),
    ).toMatchObject({ PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000", PAYOUT_DESK_PAYER_BIC: "COBADEFFXXX" });
    expect(readEnv({})).toMatchObject({ PAYOUT_DESK_PAYER_IBAN: "DE89370400440532013000" });
  });
});
