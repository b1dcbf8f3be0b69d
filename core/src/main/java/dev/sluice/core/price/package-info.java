/**
 * Money: what a model's tokens cost ({@link dev.sluice.core.price.Price}, with the arithmetic from
 * tokens to micro-units of the config's currency) and which price a call to a provider and model
 * is counted with ({@link dev.sluice.core.price.Prices}: the built-in table of list prices, then
 * the config's own entries).
 */
package dev.sluice.core.price;
