// Moved to core/game-automation.ts (a leaf module db/ may import too); kept so existing imports keep working.
export * from "@/core/game-automation";
