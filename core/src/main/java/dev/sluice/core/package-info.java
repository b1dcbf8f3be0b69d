/**
 * The governor: the single door every governed call passes, and its public API.
 *
 * <p>Public here, and all a caller of {@code core} needs: {@link dev.sluice.core.Governor} (admit,
 * with its {@link dev.sluice.core.GovernorBuilder}), {@link dev.sluice.core.AnswerLearner} with
 * {@link dev.sluice.core.ProviderAnswer} and {@link dev.sluice.core.LearnedBudget} (what providers'
 * answers teach), {@link dev.sluice.core.GovernorControls} (what operators see and tune), {@link
 * dev.sluice.core.CallContext} and {@link dev.sluice.core.Demand} (who calls and what it asks),
 * {@link dev.sluice.core.Admission}, {@link dev.sluice.core.Permit} and {@link
 * dev.sluice.core.Usage} (the answer, the reservation, what was used), {@link
 * dev.sluice.core.Rejection} with {@link dev.sluice.core.GatewayDecision} and {@link
 * dev.sluice.core.Rejections} (why a call was refused), {@link dev.sluice.core.BudgetStatus} and
 * {@link dev.sluice.core.BudgetAlert} (where a spend limit stands, and when it crossed its
 * warning), {@link dev.sluice.core.Clock}, {@link dev.sluice.core.GovernorStats} and {@link
 * dev.sluice.core.BucketView} (what status views read), and {@link dev.sluice.core.SluiceRuntime}
 * (the governor and engine built from a config).
 *
 * <p>Public too, but tools for {@code core}'s other packages rather than API: {@link
 * dev.sluice.core.Caches} (where every Caffeine cache starts), {@link dev.sluice.core.LastSeen} (a
 * direct-mapped memo of the last few strings asked about) and {@link dev.sluice.core.LazyLogger} (a
 * logger made on first use).
 *
 * <p>Everything else in this package is package-private, and lives here because it shares the
 * governor's lock and the permit's state: routes and their look-up ({@code Route}, {@code
 * Routes}, {@code RouteKey}, {@code RouteRenewal}), the lock-free lane ({@code Lane}, {@code
 * LaneRun}, {@code Backlog}), queued calls ({@code WaitingCalls}, {@code Waiter}, {@code
 * Decided}, {@code DispatchPacer}), what a call charges ({@code Charges}), why a demand does not
 * fit ({@code Shortfall}), settlements and leases ({@code PermitLedger}, {@code LeaseReaper}),
 * providers' answers waiting for the lock ({@code AnswerBacklog}), spend limits ({@code
 * Budgets}), operators' pauses ({@code OperatorPauses}), and the status views ({@code
 * StatusViews}).
 *
 * <p>The other steps of a call have packages of their own: recognising a provider and reading its
 * answers ({@code provider}), identity ({@code identity}), estimates ({@code estimate}), the bucket
 * arithmetic ({@code quota}), queues and fair shares ({@code schedule}), the call's attempts
 * ({@code exchange}), retry rules ({@code retry}), the fleet store ({@code store}), what was learned
 * kept across a restart ({@code state}), counters and the decision log ({@code telemetry}), and the
 * MBeans ({@code jmx}). docs/design.md has the table.
 */
package dev.sluice.core;
