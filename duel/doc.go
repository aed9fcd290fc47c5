// Package duel decides whether a contender model dethrones the champion
// (spec/duel.md): the pure statistics of an evaluation, with no I/O.
//
// Champion and contender answer the same challenges in every environment.
// Each challenge is a win, loss or draw for the contender by reward; draws
// are counted but carry no information about who is better, so the win rate
// is wins / (wins + losses). Per env, an EnvState runs a sequential test:
// at fixed looks (counts of decisive outcomes on a geometric schedule) it
// computes the Wilson score interval of the win rate and decides for the
// contender when the lower bound exceeds the ratio to beat, for the champion
// when the upper bound falls below it. A Duel runs the envs in parallel and
// ends as soon as the contender holds more than half of them or can no
// longer get there.
//
// Everything an auditor must recompute is integer arithmetic: bounds are
// exact parts per million (rounded outward), the ratio to beat and its
// exponential decay are exact floors, and Recompute rebuilds a duel's
// decision record byte for byte from its per-challenge outcomes. Floats
// appear only in the simulation and the exact error computation, which
// justify the constants (Rule and FrontierParams) but never enter a record.
package duel
