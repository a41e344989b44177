/** A UUID's text as PostgreSQL reads one: 8-4-4-4-12 hexadecimal digits, in either case. */
export const UUID_SOURCE = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

/** A whole text that is a UUID: checked before it reaches a query, where anything else is a database error. */
export const UUID = new RegExp(`^${UUID_SOURCE}$`);
