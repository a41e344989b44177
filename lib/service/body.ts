import "server-only";
import { isUtf8 } from "node:buffer";
import { RESPONSE_TOO_LARGE, ServiceError } from "./errors";

/** The most the client reads of one answer: far above any answer of a subscription, refund or detail route. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The aggregate report's cap. One report carries at most 20,000 renewal lines and 20,000 reversal rows ("more than
 * 20,000 settled renewals ... or more than 20,000 refunded renewals" answers WINDOW_TOO_LARGE), about 1.1 KB and
 * 0.8 KB each as the service writes them: under 40 MB in all.
 */
export const REPORT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * An answer's body: its text, and its bytes (stored as they are, never encoded again): the bytes that came when they
 * are the text's UTF-8, else the text encoded.
 */
export type ReadBody = { text: string; bytes: Buffer };

/**
 * Reads a body, giving up past `limitBytes` (a declared Content-Length above it is refused before reading): an
 * endpoint that streams without end must not fill the process's memory. The text is decoded as UTF-8 (a leading BOM
 * dropped, malformed sequences replaced).
 */
export async function readBodyCapped(response: Response, limitBytes: number): Promise<ReadBody> {
  const tooLarge = () =>
    new ServiceError({ kind: "invalid_response", code: RESPONSE_TOO_LARGE, status: response.status, limitBytes });
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) {
    const text = await response.text();
    const bytes = Buffer.from(text);
    if (bytes.length > limitBytes) throw tooLarge();
    return { text, bytes };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const received = Buffer.concat(chunks, size);
  const text = new TextDecoder().decode(received);
  // The bytes as they came when they are the text read: UTF-8 with no byte-order mark. Otherwise (a mark the decoding
  // dropped, a malformed sequence it replaced) the text read, encoded, so that what is stored is what was parsed.
  const asRead = isUtf8(received) && !(received[0] === 0xef && received[1] === 0xbb && received[2] === 0xbf);
  return { text, bytes: asRead ? received : Buffer.from(text) };
}
