import { parse } from "csv-parse/sync";

/** A CSV's rows as objects keyed by its header: the cells as written, nothing interpreted. */
export function readCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = parse(text, { relax_column_count: false }) as string[][];
  return rows.map((cells) => Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""])));
}
