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
