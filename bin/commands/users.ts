import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import { findUserIdByEmail } from "@/db/queries/users";
import { roleSchema } from "@/lib/auth/roles";
import {
  createUser,
  emailSchema,
  listUsers,
  passwordSchema,
  removeUserAccess,
  setUserPassword,
  setUserRole,
} from "@/lib/auth/users";
import { CliError, secretFromFile } from "../cli";
import { type Command, withDb } from "../with-db";

/** Who acts through the command line: nobody signed in. */
const CLI: ActingAs = { actor: null, via: "cli" };

type PasswordFlags = { password?: string; "password-file"?: string };

/** A command's flags with a password given either on the command line or, better, as a file's first line. */
function withPasswordFlags<T extends z.ZodRawShape>(shape: T) {
  return z
    .object({
      ...shape,
      password: passwordSchema.optional(),
      "password-file": z.string().trim().min(1).optional(),
    })
    .refine((f) => Boolean((f as PasswordFlags).password) !== Boolean((f as PasswordFlags)["password-file"]), {
      message: "give it, or --password-file (one of the two)",
      path: ["password"],
    });
}

function passwordOf(flags: PasswordFlags): Promise<string> {
  return flags.password !== undefined
    ? Promise.resolve(flags.password)
    : secretFromFile("password-file", flags["password-file"] as string, passwordSchema);
}

async function userIdOf(db: Parameters<typeof findUserIdByEmail>[0], email: string): Promise<string> {
  const userId = await findUserIdByEmail(db, email);
  if (!userId) throw new CliError(`no user with email ${email}`);
  return userId;
}

/** The `users` commands: create, list, change a role, remove access, set a password. */
export const userCommands: Record<string, Command> = {
  "users add": {
    spec: {
      usage: "npm run desk -- users add --email E --role R (--password P | --password-file F) [--name N]",
      description:
        "Creates a user who signs in with email and password. A password on the command line is seen by ps and " +
        "kept in shell history: prefer --password-file (the file's first line).",
      options: {
        email: { type: "string", description: "Sign-in email" },
        role: { type: "string", description: "viewer | support | finance | admin" },
        password: { type: "string", description: "Initial password (at least 10 characters)" },
        "password-file": { type: "string", description: "A file whose first line is the initial password" },
        name: { type: "string", description: "Display name (default: the part of the email before @)" },
      },
      schema: withPasswordFlags({
        email: emailSchema,
        role: roleSchema,
        name: z.string().trim().min(1).max(120).optional(),
      }),
    },
    run: async (flags: PasswordFlags & { email: string; role: z.infer<typeof roleSchema>; name?: string }) => {
      const password = await passwordOf(flags);
      return withDb(async (db) => {
        const user = await createUser(db, { email: flags.email, role: flags.role, password, name: flags.name }, CLI);
        return { id: user.id, email: user.email, role: user.role };
      });
    },
  },
  "users list": {
    spec: {
      usage: "npm run desk -- users list",
      description: "Lists users, their roles and whether they can sign in (access).",
      options: {},
      schema: z.object({}),
    },
    run: () =>
      withDb(async (db) =>
        (await listUsers(db)).map((u) => ({ email: u.email, name: u.name, role: u.role, access: u.hasAccess })),
      ),
  },
  "users set-role": {
    spec: {
      usage: "npm run desk -- users set-role --email E --role R",
      description: "Changes a user's role.",
      options: {
        email: { type: "string", description: "The user's email" },
        role: { type: "string", description: "viewer | support | finance | admin" },
      },
      schema: z.object({ email: emailSchema, role: roleSchema }),
    },
    run: (flags: { email: string; role: z.infer<typeof roleSchema> }) =>
      withDb(async (db) => {
        const changed = await setUserRole(db, await userIdOf(db, flags.email), flags.role, CLI);
        return { email: changed.email, role: changed.role };
      }),
  },
  "users remove-access": {
    spec: {
      usage: "npm run desk -- users remove-access --email E",
      description:
        "Ends every session of the user and deletes their password: they cannot sign in until a new one is set. " +
        "The last admin who can sign in keeps theirs. Audited.",
      options: { email: { type: "string", description: "The user's email" } },
      schema: z.object({ email: emailSchema }),
    },
    run: (flags: { email: string }) => withDb(async (db) => removeUserAccess(db, await userIdOf(db, flags.email), CLI)),
  },
  "users set-password": {
    spec: {
      usage: "npm run desk -- users set-password --email E (--password P | --password-file F)",
      description:
        "Sets the user's password (giving access back when it was removed) and ends their sessions. Prefer " +
        "--password-file (the file's first line): a password on the command line is seen by ps. Audited.",
      options: {
        email: { type: "string", description: "The user's email" },
        password: { type: "string", description: "The new password (at least 10 characters)" },
        "password-file": { type: "string", description: "A file whose first line is the new password" },
      },
      schema: withPasswordFlags({ email: emailSchema }),
    },
    run: async (flags: PasswordFlags & { email: string }) => {
      const password = await passwordOf(flags);
      return withDb(async (db) => setUserPassword(db, { userId: await userIdOf(db, flags.email), password }, CLI));
    },
  },
};
