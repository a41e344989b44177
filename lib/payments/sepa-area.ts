import { isSEPACountry } from "ibantools";

/**
 * Countries in the SEPA schemes' geographical scope that the ibantools list lacks: the European Payments Council took
 * in Albania and Montenegro in November 2024, Moldova and North Macedonia in March 2025, Serbia in May 2025.
 */
const JOINED_SINCE = new Set(["AL", "ME", "MD", "MK", "RS"]);

/**
 * French territories whose banks keep FR IBANs but pay in the CFP franc, outside SEPA: New Caledonia, French Polynesia,
 * Wallis and Futuna (known by the BIC's country).
 */
const OUTSIDE_WITH_FR_IBANS = new Set(["NC", "PF", "WF"]);

/** Whether a euro transfer (a SEPA file) reaches an account: its IBAN's country, and its bank's where known. */
export function inSepaArea(iban: string, bic?: string | null): boolean {
  return outsideSepaArea(iban, bic) === null;
}

/** Where an account outside the SEPA area is ("an account in TR", "a bank in NC"), or null when it is in it. */
export function outsideSepaArea(iban: string, bic?: string | null): string | null {
  const country = iban.slice(0, 2).toUpperCase();
  const bank = bic?.slice(4, 6).toUpperCase();
  if (bank && OUTSIDE_WITH_FR_IBANS.has(bank)) return `a bank in ${bank}`;
  return isSEPACountry(country) || JOINED_SINCE.has(country) ? null : `an account in ${country}`;
}

/**
 * The European Economic Area: the EU, Iceland, Liechtenstein and Norway (their outermost regions bank with the
 * country's IBANs). A euro transfer between it and a SEPA country outside it (GB, CH, MC, SM, AD, VA, and those that
 * joined since 2024) must name the payer's address (Regulation (EU) 2023/1113 on transfers of funds, EPC rulebook).
 */
const EEA = new Set(
  (
    "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE " + // the European Union
    "IS LI NO"
  ).split(" "),
);

/** The country of an account outside the EEA ("GB"), or null when it is in the EEA. */
export function countryOutsideEea(iban: string): string | null {
  const country = iban.slice(0, 2).toUpperCase();
  return EEA.has(country) ? null : country;
}

/** Where an account in the SEPA area but outside the EEA is ("an account in GB"), or null when it is in the EEA. */
export function outsideEea(iban: string): string | null {
  const country = countryOutsideEea(iban);
  return country && `an account in ${country}`;
}
