package validator

import "log/slog"

// LogProgress is a Progress that logs a node's duels: each start and end
// at info, an abandoned duel as a warning, and each outcome at debug (a
// duel counts thousands).
func LogProgress(log *slog.Logger) func(Progress) {
	return func(p Progress) {
		switch p.Stage {
		case StageStart:
			log.Info("duel started", "duel", p.Duel.String(), "champion", p.Champion, "contender", p.Contender,
				"start_block", p.Start.Number, "ratio_ppm", p.RatioPPM, "resumed", p.Resumed)
		case StageDecided:
			log.Info("duel decided", "duel", p.Duel.String(), "winner", p.Winner.String(), "champion", p.Champion, "contender", p.Contender, "record", p.Record.String())
		case StageAbandoned:
			log.Warn("duel abandoned", "duel", p.Duel.String(), "champion", p.Champion, "contender", p.Contender, "reason", p.Reason)
		case StageOutcome:
			log.Debug("duel outcome", "duel", p.Duel.String(), "env", p.Env, "outcome", p.Outcome,
				"wins", p.Wins, "losses", p.Losses, "draws", p.Draws, "lower_ppm", p.LowerPPM, "upper_ppm", p.UpperPPM)
		}
	}
}
