/**
 * The SEPA character set (EPC "SEPA Requirements for an Extended Character Set", the basic Latin set every
 * SEPA bank must accept): a-z A-Z 0-9 / - ? : ( ) . , ' + and space. Text outside it is transliterated, not
 * rejected, so a name like "Zoë Łukasz-Øster" reaches the bank as "Zoe Lukasz-Oster":
 *
 * 1. the Latin letters that do not decompose are spelled out (ß and ẞ → ss, æ → ae, ø → o, œ → oe, ł → l, đ and ð →
 *    d, þ → th, ı → i, ħ → h, ŧ → t, ŋ → n, ĸ → k, ſ → s, ĳ → ij, the ordinal ª → a and º → o);
 *    & becomes +, _ becomes -, typographic quotes and the letter-like apostrophes (ʼ ʻ ʹ) become ';
 * 2. accented letters lose their accents (Unicode NFD, combining marks removed);
 * 3. anything still outside the set becomes a space; runs of spaces collapse; the EPC rule that a text neither
 *    starts nor ends with "/" nor contains "//" is applied; the result is cut to the field's length.
 *
 * A name that transliterates to nothing (e.g. written only in another script) is left empty; the writer refuses
 * the item rather than guess.
 */
const SPELLED: Record<string, string> = {
  ß: "ss",
  ẞ: "SS",
  Ĳ: "IJ",
  ĳ: "ij",
  ª: "a",
  º: "o",
  "\u02BC": "'",
  "\u02BB": "'",
  "\u02B9": "'",
  Æ: "AE",
  æ: "ae",
  Ø: "O",
  ø: "o",
  Œ: "OE",
  œ: "oe",
  Ł: "L",
  ł: "l",
  Đ: "D",
  đ: "d",
  Þ: "TH",
  þ: "th",
  Ð: "D",
  ð: "d",
  ı: "i",
  Ħ: "H",
  ħ: "h",
  Ŧ: "T",
  ŧ: "t",
  Ŋ: "N",
  ŋ: "n",
  ĸ: "k",
  ſ: "s",
  "&": "+",
  _: "-",
  "\u2018": "'",
  "\u2019": "'",
};

const ALLOWED_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

const SPELLED_PATTERN = new RegExp(`[${Object.keys(SPELLED).join("")}]`, "g");

export function sepaText(value: string, maxLength: number): string {
  let out = value;
  if (!isSepaText(out)) {
    out = out
      .replace(SPELLED_PATTERN, (ch) => SPELLED[ch] ?? " ")
      .normalize("NFD")
      .replace(/\p{M}/gu, "")
      .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, " ");
  }
  // Neither end a slash nor a space, once cut to length too ("/ /Acme" is "Acme", not "/Acme").
  out = out
    .replace(/\/{2,}/g, "/")
    .replace(/\s+/g, " ")
    .replace(/^[\s/]+|[\s/]+$/g, "");
  return out.slice(0, maxLength).replace(/[\s/]+$/, "");
}

/** Whether transliterating `value` (sepaText) drops letters: letters of another script become spaces, unseen. */
export function sepaLosesLetters(value: string): boolean {
  return /[^\P{L}A-Za-z]/u.test(value.replace(SPELLED_PATTERN, (ch) => SPELLED[ch] ?? " ").normalize("NFD"));
}

export function isSepaText(value: string): boolean {
  return ALLOWED_TEXT.test(value) && !value.startsWith("/") && !value.endsWith("/") && !value.includes("//");
}

/**
 * Why a euro transfer cannot carry an account holder's name whole: no letter or digit of the SEPA set at all, letters
 * of another alphabet it would leave out, or over 70 characters as written (the name's limit); null when it can. Each
 * caller words it for its reader (entering details, a payment file).
 */
export function sepaHolderProblem(holder: string): "no_letters" | "other_alphabet" | "too_long" | null {
  if (sepaText(holder, 70) === "") return "no_letters";
  if (sepaLosesLetters(holder)) return "other_alphabet";
  if (sepaText(holder, 1000).length > 70) return "too_long";
  return null;
}
