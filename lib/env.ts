// Moved to core/env.ts (a leaf module db/ may import too); kept so existing imports keep working.
export * from "@/core/env";
