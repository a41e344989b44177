import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fieldLabel } from "../../lib/actions";
import { type Role, roleBelow } from "../../lib/auth/roles";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAnonymously, actAs } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
// better-auth's Next.js cookie plugin imports the module by its file name.
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

/**
 * Every server action and route handler of the app, discovered from the source tree (not a hand list), must
 * refuse an anonymous caller, and a role-gated one must refuse the role just below its own.
 */
const APP_DIR = path.resolve(import.meta.dirname, "../../app");
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const files = walk(APP_DIR).filter((f) => /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f));
const actionFiles = files.filter((f) => /^\s*["']use server["'];?/.test(readFileSync(f, "utf8")));
const routeFiles = files.filter((f) => /(^|\/)route\.ts$/.test(f));

type Guarded = ((...args: unknown[]) => Promise<unknown>) & { requiredRole?: Role | "public"; publicReason?: string };

let t: TestDatabase;
const sessions = new Map<Role, string[]>();

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  for (const role of ["viewer", "support", "finance", "admin"] as const) sessions.set(role, await signInAs(t.db, role));
});
afterAll(async () => t?.drop());

/** The latest refusal for want of a role in the audit log. */
async function lastRefusal() {
  return t.db
    .selectFrom("audit_log")
    .select(["actor_email", "target", "outcome", "detail"])
    .where("action", "=", "access.refused")
    .where("outcome", "=", "refused_role")
    .orderBy("id", "desc")
    .executeTakeFirst();
}

describe("server actions", () => {
  it("finds the app's server actions", () => {
    expect(actionFiles.length).toBeGreaterThan(3);
  });

  for (const file of actionFiles) {
    const name = path.relative(APP_DIR, file);
    it(`${name}: every export declares its role and refuses callers below it`, async () => {
      const module = (await import(file)) as Record<string, Guarded>;
      const exports = Object.entries(module);
      expect(exports.length).toBeGreaterThan(0);
      for (const [exportName, action] of exports) {
        expect(typeof action, `${exportName} is a function`).toBe("function");
        const role = action.requiredRole;
        expect(role, `${exportName} is built with defineAction or definePublicAction`).toBeDefined();
        if (role === "public") {
          expect(action.publicReason, `${exportName} says why it is public`).toBeTruthy();
          continue;
        }
        actAnonymously();
        await expect(action(new FormData()), `${exportName} anonymous`).resolves.toMatchObject({
          ok: false,
          code: "UNAUTHENTICATED",
        });
        const below = roleBelow(role!);
        if (below) {
          actAs(sessions.get(below)!);
          await expect(action(new FormData()), `${exportName} as ${below}`).resolves.toMatchObject({
            ok: false,
            code: "FORBIDDEN",
          });
          expect(await lastRefusal(), `${exportName}'s refusal audited`).toMatchObject({
            actor_email: expect.stringMatching(new RegExp(`^${below}-`)),
            target: expect.any(String),
            detail: { needs: role, role: below },
          });
        }
        // A fresh session: the action may be "sign out", and a redirect means it ran.
        actAs(await signInAs(t.db, role!));
        const own = (await action(new FormData()).catch((error: Error) => ({ code: error.message }))) as {
          code?: string;
        };
        expect(own.code, `${exportName} as ${role} passes the role check`).not.toBe("FORBIDDEN");
        expect(own.code).not.toBe("UNAUTHENTICATED");
        // Empty input is refused with a message naming the fields, never a crash.
        expect(own.code, `${exportName} with empty input`).not.toBe("INTERNAL");
        if (own.code === "INVALID_INPUT") {
          const result = own as { message: string; fieldErrors?: Record<string, string> };
          expect(Object.keys(result.fieldErrors ?? {}).length).toBeGreaterThan(0);
          for (const field of Object.keys(result.fieldErrors ?? {}))
            expect(result.message).toContain(fieldLabel(field));
        }
      }
    });
  }
});

describe("route handlers", () => {
  it("finds the app's route handlers", () => {
    expect(routeFiles.length).toBeGreaterThan(0);
  });

  for (const file of routeFiles) {
    const name = path.relative(APP_DIR, file);
    it(`${name}: every method declares its role and refuses callers below it`, async () => {
      const module = (await import(file)) as Record<string, Guarded>;
      const methods = HTTP_METHODS.filter((m) => typeof module[m] === "function");
      expect(methods.length).toBeGreaterThan(0);
      for (const method of methods) {
        const handler = module[method]!;
        const role = handler.requiredRole;
        expect(role, `${method} is built with defineRoute or definePublicRoute`).toBeDefined();
        if (role === "public") {
          expect(handler.publicReason, `${method} says why it is public`).toBeTruthy();
          continue;
        }
        const call = () =>
          handler(
            new Request("http://localhost:3000/x", {
              method,
              body: method === "GET" || method === "HEAD" ? undefined : "{}",
            }),
            {
              params: Promise.resolve({}),
            },
          ) as Promise<Response>;
        actAnonymously();
        expect((await call()).status, `${method} anonymous`).toBe(401);
        const below = roleBelow(role!);
        if (below) {
          actAs(sessions.get(below)!);
          expect((await call()).status, `${method} as ${below}`).toBe(403);
          expect(await lastRefusal(), `${method}'s refusal audited`).toMatchObject({
            target: `${method} /x`,
            detail: { needs: role, role: below },
          });
        }
      }
    });
  }
});
