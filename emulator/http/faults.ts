import { randomBytes } from "node:crypto";

/**
 * Injected faults (admin API): for a route pattern, the next N calls answer a given failure.
 * Patterns match the path without the /sandbox prefix; `*` stands for one path segment, `**` for any rest.
 */
export type FaultKind = "429" | "500" | "502" | "503" | "hang" | "drop" | "delay";

export type Fault = {
  id: string;
  route: string;
  method: string | null;
  kind: FaultKind;
  remaining: number;
  retryAfter: number;
  errorCode: string | null;
  errorCodePublic: string | null;
  hangMs: number;
  matcher: RegExp;
};

export type FaultInput = {
  route: string;
  method?: string | null;
  fault: FaultKind;
  count?: number;
  retry_after?: number;
  error_code?: string | null;
  error_code_public?: string | null;
  hang_ms?: number;
};

export function routePattern(route: string): RegExp {
  const escaped = route
    .split("/")
    .map((segment) => {
      if (segment === "**") return "\u0001";
      return segment.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
    })
    .join("/")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: \u0001 is the placeholder put in for "**" above.
    .replace(/\/\u0001/g, "(?:/.*)?")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
    .replace(/\u0001/g, ".*");
  return new RegExp(`^${escaped}/?$`);
}

export class FaultRegistry {
  private faults: Fault[] = [];

  add(input: FaultInput): Fault {
    const fault: Fault = {
      id: `flt_${randomBytes(6).toString("hex")}`,
      route: input.route,
      method: input.method ? input.method.toUpperCase() : null,
      kind: input.fault,
      remaining: input.count ?? 1,
      retryAfter: input.retry_after ?? 1,
      errorCode: input.error_code ?? null,
      errorCodePublic: input.error_code_public ?? null,
      hangMs: input.hang_ms ?? 120_000,
      matcher: routePattern(input.route),
    };
    this.faults.push(fault);
    return fault;
  }

  /** The first armed fault for this call, consumed by one. */
  take(method: string, path: string): Fault | null {
    const index = this.faults.findIndex(
      (fault) => (fault.method === null || fault.method === method) && fault.matcher.test(path),
    );
    if (index < 0) return null;
    const fault = this.faults[index] as Fault;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return fault;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((fault) => fault.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }
}

export function faultView(fault: Fault): Record<string, unknown> {
  return {
    id: fault.id,
    route: fault.route,
    method: fault.method,
    fault: fault.kind,
    remaining: fault.remaining,
    retry_after: fault.retryAfter,
    error_code: fault.errorCode,
    error_code_public: fault.errorCodePublic,
    hang_ms: fault.hangMs,
  };
}
