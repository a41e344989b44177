import { describe, expect, it } from "vitest";
import { inSepaArea, outsideEea, outsideSepaArea } from "./sepa-area";

describe("the SEPA area", () => {
  it("takes the EEA, its neighbours in the schemes, and the countries that joined them since 2024", () => {
    for (const iban of ["DE89370400440532013000", "GB82WEST12345698765432", "CH9300762011623852957"])
      expect(inSepaArea(iban), iban).toBe(true);
    for (const country of ["AL", "ME", "MD", "MK", "RS"]) expect(inSepaArea(`${country}00`), country).toBe(true);
  });

  it("leaves out the rest, and French territories of the CFP franc whose banks keep FR IBANs", () => {
    expect(inSepaArea("TR330006100519786457841326")).toBe(false);
    expect(inSepaArea("FR7630001007941234567890185", "CEPANCNMXXX")).toBe(false);
    expect(inSepaArea("FR7630001007941234567890185", "BNPAFRPPXXX")).toBe(true);
    expect(outsideSepaArea("FR7630001007941234567890185", "CEPANCNMXXX")).toBe("a bank in NC");
    expect(outsideSepaArea("TR330006100519786457841326")).toBe("an account in TR");
  });

  it("tells the accounts outside the EEA, for which a euro transfer names the payer's address", () => {
    for (const iban of [
      "DE89370400440532013000",
      "NO9386011117947",
      "LI21088100002324013AA",
      "FR7630001007941234567890185",
    ])
      expect(outsideEea(iban), iban).toBeNull();
    expect(outsideEea("GB82WEST12345698765432")).toBe("an account in GB");
    expect(outsideEea("CH9300762011623852957")).toBe("an account in CH");
    for (const country of ["MC", "SM", "AD", "VA", "AL", "ME", "MD", "MK", "RS"])
      expect(outsideEea(`${country}00`), country).toBe(`an account in ${country}`);
  });
});
