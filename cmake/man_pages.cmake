# cmake -DCLI=grainscope -DOUT=dir -DSUBCOMMANDS="info;report;..." -DVERSION=x.y.z -P man_pages.cmake
# Writes OUT/grainscope.1 and OUT/grainscope-<sub>.1: each the command's --help text as a man
# page (NAME from its first line, the rest as written, preformatted), so `man grainscope-waits`
# says exactly what `grainscope waits --help` says.

# Roff-safe text: backslashes doubled, a line's leading '.' or "'" escaped.
function(roff_escape text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(write_page name title help)
  # The first line of a subcommand's --help is its description; the main one starts with it too.
  string(REGEX MATCH "^[^\n]*" first "${help}")
  roff_escape("${first}" summary)
  roff_escape("${help}" body)
  string(TOUPPER "${name}" upper)
  file(WRITE ${OUT}/${name}.1
       ".TH ${upper} 1 \"\" \"grainscope ${VERSION}\" \"User Commands\"\n"
       ".SH NAME\n${title} \\- ${summary}\n"
       ".SH DESCRIPTION\n.nf\n${body}\n.fi\n"
       ".SH SEE ALSO\ngrainscope(1); the documentation in /usr/share/doc/grainscope (docs/ of the sources).\n")
endfunction()

file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CLI} --help failed (${rc})")
endif()
write_page(grainscope grainscope "${help}")
foreach(sub ${SUBCOMMANDS})
  execute_process(COMMAND ${CLI} ${sub} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} ${sub} --help failed (${rc})")
  endif()
  write_page(grainscope-${sub} "grainscope ${sub}" "${help}")
endforeach()
