import { extractText, getDocumentProxy } from "unpdf";

/** A PDF's text page by page, read with unpdf (not the code that wrote it), runs of white space as one space. */
export async function pdfPages(pdf: Buffer | Uint8Array): Promise<string[]> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(doc, { mergePages: false });
  return text.map((page) => page.replace(/\s+/g, " "));
}

/** A PDF's whole text, read as `pdfPages` does, its pages joined. */
export async function pdfText(pdf: Buffer | Uint8Array): Promise<string> {
  return (await pdfPages(pdf)).join(" ").replace(/\s+/g, " ");
}

export type PlacedText = { text: string; x: number; y: number; width: number };

/** The text runs of one page (1-based) where they print, in points from the page's bottom left, and its width. */
export async function pdfPlacedText(
  pdf: Buffer | Uint8Array,
  pageNumber: number,
): Promise<{ width: number; runs: PlacedText[] }> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const page = await doc.getPage(pageNumber);
  const content = await page.getTextContent();
  const runs = content.items
    .filter((item) => "str" in item && item.str.trim() !== "")
    .map((item) => {
      const run = item as { str: string; transform: number[]; width: number };
      return { text: run.str, x: run.transform[4] ?? 0, y: run.transform[5] ?? 0, width: run.width };
    });
  return { width: page.getViewport({ scale: 1 }).width, runs };
}
