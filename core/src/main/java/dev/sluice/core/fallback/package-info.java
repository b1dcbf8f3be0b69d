/**
 * Fallback routes: where a call may move when its provider cannot take it (no room at once, a
 * long provider pause, an overloaded answer), and what Sluice rewrites on the way (address, Azure
 * deployment, the body's model, the credential). The exchange engine moves calls; this package
 * holds the routes, the rewrite and the counts of moves.
 */
package dev.sluice.core.fallback;
