-- Reads a page of dead letters. KEYS[1] dead stream; ARGV[1] start id ('-' or '(id'), ARGV[2] end id, ARGV[3] count
return redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])
