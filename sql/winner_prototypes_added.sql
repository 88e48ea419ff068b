-- Winner prototypes extended by new games: the kept per-(game, frequency, seat) token count sums (the `count`
-- of the current prototypes) plus the token counts of the new games' trajectory bags by winner (draws
-- excluded), renormalised. Equal to winner_prototypes.sql over the old and the new games' bags together:
-- the same integer sums and the same division.
-- Inputs: prototypes(game, frequency, seat, token, count), trajectory_bags(game, frequency, game_id, token, count)
-- of the new games only, games(game, game_id, winner) of the new games.
WITH won AS (
    SELECT b.game, b.frequency, g.winner AS seat, b.token, b.count
    FROM trajectory_bags AS b
    JOIN games AS g ON g.game = b.game AND g.game_id = b.game_id
    WHERE g.winner IS NOT NULL
    UNION ALL
    SELECT game, frequency, seat, token, count
    FROM prototypes
),
sums AS (
    SELECT game, frequency, seat, token, sum(count)::BIGINT AS count
    FROM won
    GROUP BY game, frequency, seat, token
)
SELECT game, frequency, seat::TINYINT AS seat, token, count,
       count / sum(count) OVER (PARTITION BY game, frequency, seat) AS p
FROM sums
ORDER BY game, frequency, seat, token
