-- Segmented bags: dataset D_i (segment i = 1..$n_segments) holds every trajectory truncated after segment i.
-- State j of a trajectory of n recorded states lies in segment floor(j * n_segments / n) + 1, so segments
-- differ in size by at most one state and, when n < n_segments, some segments are empty (D_i then equals
-- D_(i-1)). Only the states the frequency sampled count; p is normalised within (game, frequency, segment, game_id).
-- Inputs: state_tokens(game, game_id, state_idx, token, count) (already token-filtered),
--         sampled_states(game, frequency, game_id, state_idx), trajectory_lengths(game, game_id, n_states).
-- Parameter: $n_segments.
WITH located AS (
    SELECT s.game, s.frequency, s.game_id, s.state_idx,
           (s.state_idx::BIGINT * $n_segments) // l.n_states + 1 AS state_segment
    FROM sampled_states AS s
    JOIN trajectory_lengths AS l ON l.game = s.game AND l.game_id = s.game_id
),
per_segment AS (
    SELECT x.game, x.frequency, x.game_id, x.state_segment, t.token, sum(t.count)::BIGINT AS count
    FROM located AS x
    JOIN state_tokens AS t ON t.game = x.game AND t.game_id = x.game_id AND t.state_idx = x.state_idx
    GROUP BY x.game, x.frequency, x.game_id, x.state_segment, t.token
),
truncated AS (
    SELECT c.game, c.frequency, d.segment, c.game_id, c.token, sum(c.count)::BIGINT AS count
    FROM per_segment AS c
    JOIN range(1, $n_segments + 1) AS d(segment) ON c.state_segment <= d.segment
    GROUP BY c.game, c.frequency, d.segment, c.game_id, c.token
)
SELECT game, frequency, segment::INTEGER AS segment, game_id, token,
       count / sum(count) OVER (PARTITION BY game, frequency, segment, game_id) AS p
FROM truncated
ORDER BY game, frequency, segment, game_id, token
