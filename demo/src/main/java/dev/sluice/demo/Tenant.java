package dev.sluice.demo;

/**
 * One tenant of the demo service: who it is, which traffic class it sends, how many callers, and
 * how long each caller thinks between calls (a person reading an answer; 0 for batch jobs).
 */
record Tenant(String name, String trafficClass, int callers, long thinkMillis) {}
