/**
 * A stand-in for the request scope Next.js gives server actions and route handlers: the headers and a cookie jar.
 * Test files mock "next/headers" with these (vi.mock(..., () => import("../support/next-request"))), then choose
 * who is calling with `actAs(cookieHeader)` or `actAnonymously()`.
 */
type Jar = Map<string, string>;
const state: { jar: Jar; extra: Record<string, string> } = { jar: new Map(), extra: {} };

function cookieHeader(): string {
  return [...state.jar.entries()].map(([k, v]) => `${k}=${v}`).join("; ");
}

export async function headers(): Promise<Headers> {
  const h = new Headers({ host: "localhost:3000", origin: "http://localhost:3000", ...state.extra });
  const cookie = cookieHeader();
  if (cookie) h.set("cookie", cookie);
  return h;
}

export async function cookies() {
  return {
    get: (name: string) => (state.jar.has(name) ? { name, value: state.jar.get(name) ?? "" } : undefined),
    getAll: () => [...state.jar.entries()].map(([name, value]) => ({ name, value })),
    has: (name: string) => state.jar.has(name),
    set: (name: string | { name: string; value: string }, value?: string) => {
      if (typeof name === "object") state.jar.set(name.name, name.value);
      else state.jar.set(name, value ?? "");
    },
    delete: (name: string) => state.jar.delete(name),
  };
}

export function draftMode() {
  return { isEnabled: false };
}

/** Replaces the jar with the cookies of a Set-Cookie list (what a sign-in answered). */
export function actAs(setCookies: string[]): void {
  state.jar = new Map();
  for (const line of setCookies) {
    const [pair] = line.split(";");
    const index = pair?.indexOf("=") ?? -1;
    if (pair && index > 0) state.jar.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
  }
}

export function actAnonymously(): void {
  state.jar = new Map();
}

export function currentCookies(): string[] {
  return [...state.jar.entries()].map(([k, v]) => `${k}=${v}`);
}

/** A form as a browser posts it to a server action: each value as text. */
export function formData(values: Record<string, string | number>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(values)) data.set(key, String(value));
  return data;
}
