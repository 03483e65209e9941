-- Reads the clock of the server that holds a key (on Cluster, each master has its own).
-- KEYS[1] a key of the partition whose clock is read
-- Returns the epoch ms, rounded up
local _, up = dq.now()
return {up}
